#include "framework/output/parallel_line_writer.hpp"

namespace ringscope::output {

ParallelLineWriter::ParallelLineWriter(OutputBuffer& out, int threads, Format format)
    : out_(out), format_(std::move(format)) {
    const int n = threads < 1 ? 1 : threads;
    // Two batches per worker keep them busy while the oldest is written out.
    for (int i = 0; i < 2 * n + 1; ++i) slots_.push_back(std::make_unique<Slot>());
    for (int i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
}

ParallelLineWriter::~ParallelLineWriter() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : workers_) t.join();
}

void ParallelLineWriter::add(const LineJob& job, std::span<const uint8_t> payload) {
    LineBatch& b = slots_[filled_ % slots_.size()]->batch;
    LineJob j = job;
    j.offset = static_cast<uint32_t>(b.bytes.size());
    j.size = static_cast<uint32_t>(payload.size());
    b.bytes.insert(b.bytes.end(), payload.begin(), payload.end());
    b.jobs.push_back(j);
    if (b.jobs.size() >= kBatchEvents || b.bytes.size() >= kBatchBytes) submit();
}

void ParallelLineWriter::submit() {
    {
        std::lock_guard lock(mu_);
        slots_[filled_ % slots_.size()]->state = State::queued;
        ++filled_;
    }
    work_cv_.notify_one();
    write_done(false);
    // The next slot to fill must be free: the oldest batch is written first if it holds it.
    if (filled_ - written_ == slots_.size()) write_done(true);
}

void ParallelLineWriter::write_done(bool wait_one) {
    for (;;) {
        Slot* s = nullptr;
        {
            std::unique_lock lock(mu_);
            if (written_ == filled_) return;
            s = slots_[written_ % slots_.size()].get();
            if (s->state != State::done) {
                if (!wait_one) return;
                done_cv_.wait(lock, [&] { return s->state == State::done; });
            }
        }
        out_.append(s->batch.text.view());
        s->batch.text.clear();
        s->batch.bytes.clear();
        s->batch.jobs.clear();
        {
            std::lock_guard lock(mu_);
            s->state = State::filling;
            ++written_;
        }
        wait_one = false;
    }
}

void ParallelLineWriter::drain() {
    if (!slots_[filled_ % slots_.size()]->batch.jobs.empty()) submit();
    while (written_ < filled_) write_done(true);
}

void ParallelLineWriter::work() {
    for (;;) {
        Slot* s = nullptr;
        {
            std::unique_lock lock(mu_);
            work_cv_.wait(lock, [&] { return stop_ || taken_ < filled_; });
            if (stop_) return;
            s = slots_[taken_ % slots_.size()].get();
            ++taken_;
        }
        format_(s->batch);
        {
            std::lock_guard lock(mu_);
            s->state = State::done;
        }
        done_cv_.notify_all();
    }
}

}  // namespace ringscope::output
