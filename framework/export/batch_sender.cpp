#include "framework/export/batch_sender.hpp"

namespace ringscope::exporter {

BatchSender::BatchSender(std::span<HttpClient* const> clients, const ClickHouseSchema& schema,
                         uint64_t file_id, ExportCounters& counters)
    : schema_(schema), file_id_(file_id), counters_(counters) {
    for (HttpClient* c : clients) threads_.emplace_back([this, c] { loop(*c); });
}

BatchSender::~BatchSender() {
    (void)finish();
}

Status BatchSender::send(std::vector<uint8_t> body, uint64_t first_seq, uint64_t end_seq) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return waiting_.empty() || !error_; });
    if (!error_) return error_;
    waiting_.push_back(Batch{std::move(body), first_seq, end_seq});
    changed_.notify_all();
    return Status::success();
}

Status BatchSender::finish() {
    {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return (waiting_.empty() && busy_ == 0) || !error_; });
        stopping_ = true;
        changed_.notify_all();
    }
    for (auto& t : threads_)
        if (t.joinable()) t.join();
    return error_;
}

void BatchSender::loop(HttpClient& client) {
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return !waiting_.empty() || stopping_ || !error_; });
        if (!error_ || waiting_.empty()) return;  // another batch failed, or stopping with nothing left
        Batch b = std::move(waiting_.front());
        waiting_.pop_front();
        ++busy_;
        changed_.notify_all();  // the producer may hand over the next batch now
        lock.unlock();
        Status s = store(client, b);
        lock.lock();
        --busy_;
        if (s)
            sent_bytes_ += b.body.size();
        else if (error_)
            error_ = std::move(s);
        changed_.notify_all();
    }
}

Status BatchSender::store(HttpClient& client, const Batch& b) {
    const uint64_t expect = b.end_seq - b.first_seq;
    const std::string count_sql = schema_.count_batch(file_id_, b.first_seq, b.end_seq);
    auto landed = [&]() -> Expected<bool> {
        auto n = client.query_count(count_sql);
        if (!n) return std::move(n).error();
        // An INSERT of one block is atomic: all of it or none. Anything else is not ours to fix.
        if (*n != 0 && *n != expect)
            return Error(Errc::corrupt, "the batch of seq " + std::to_string(b.first_seq) + ".." +
                                            std::to_string(b.end_seq) + " holds " + std::to_string(*n) +
                                            " rows, not " + std::to_string(expect));
        return *n == expect;
    };
    if (Status s = client.insert(schema_.insert_events(), b.body, landed); !s) return s;
    counters_.sent_bytes += b.body.size();
    counters_.events += expect;
    return Status::success();
}

}  // namespace ringscope::exporter
