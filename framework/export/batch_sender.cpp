#include "framework/export/batch_sender.hpp"

namespace ringscope::exporter {

BatchSender::BatchSender(HttpClient& client, const ClickHouseSchema& schema, uint64_t file_id,
                         ExportCounters& counters)
    : client_(client), schema_(schema), file_id_(file_id), counters_(counters), thread_([this] { loop(); }) {}

BatchSender::~BatchSender() {
    (void)finish();
}

Status BatchSender::send(std::vector<uint8_t> body, uint64_t first_seq, uint64_t end_seq) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !waiting_ || !error_; });
    if (!error_) return error_;
    waiting_ = Batch{std::move(body), first_seq, end_seq};
    changed_.notify_all();
    return Status::success();
}

Status BatchSender::finish() {
    {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return (!waiting_ && !busy_) || !error_; });
        stopping_ = true;
        changed_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
    return error_;
}

void BatchSender::loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return waiting_ || stopping_; });
        if (!waiting_) return;  // stopping with nothing left
        Batch b = std::move(*waiting_);
        waiting_.reset();
        busy_ = true;
        changed_.notify_all();  // the producer may hand over the next batch now
        lock.unlock();
        Status s = store(b);
        lock.lock();
        busy_ = false;
        if (!s && error_) error_ = std::move(s);
        changed_.notify_all();
        if (!error_) return;
    }
}

Status BatchSender::store(const Batch& b) {
    const uint64_t expect = b.end_seq - b.first_seq;
    const std::string count_sql = schema_.count_batch(file_id_, b.first_seq, b.end_seq);
    auto landed = [&]() -> Expected<bool> {
        auto n = client_.query_count(count_sql);
        if (!n) return std::move(n).error();
        // An INSERT of one block is atomic: all of it or none. Anything else is not ours to fix.
        if (*n != 0 && *n != expect)
            return Error(Errc::corrupt, "the batch of seq " + std::to_string(b.first_seq) + ".." +
                                            std::to_string(b.end_seq) + " holds " + std::to_string(*n) +
                                            " rows, not " + std::to_string(expect));
        return *n == expect;
    };
    if (Status s = client_.insert(schema_.insert_events(), b.body, landed); !s) return s;
    ++batches_;
    sent_bytes_ += b.body.size();
    counters_.sent_bytes += b.body.size();
    counters_.events += expect;
    return Status::success();
}

}  // namespace ringscope::exporter
