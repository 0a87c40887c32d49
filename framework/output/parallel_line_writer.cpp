#include "framework/output/parallel_line_writer.hpp"

namespace ringscope::output {

ParallelLineWriter::ParallelLineWriter(OutputBuffer& out, int threads, Format format)
    : out_(out), format_(std::move(format)) {
    const int n = threads < 1 ? 1 : threads;
    // Two batches per thread keep the workers busy while the oldest is written out.
    for (int i = 0; i < 2 * n + 2; ++i) slots_.push_back(std::make_unique<Slot>());
    for (int i = 1; i < n; ++i) workers_.emplace_back([this] { work(); });
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
    LineBatch& b = slot(filled_).batch;
    LineJob& j = b.jobs.emplace_back(job);
    j.offset = static_cast<uint32_t>(b.bytes.size());
    j.size = static_cast<uint32_t>(payload.size());
    b.bytes.insert(b.bytes.end(), payload.begin(), payload.end());
    submit_if_full(b);
}

void ParallelLineWriter::add_line(std::string_view line) {
    LineBatch& b = slot(filled_).batch;
    LineJob& j = b.jobs.emplace_back();
    j.text = true;
    j.offset = static_cast<uint32_t>(b.bytes.size());
    j.size = static_cast<uint32_t>(line.size());
    b.bytes.insert(b.bytes.end(), line.begin(), line.end());
    submit_if_full(b);
}

void ParallelLineWriter::submit_if_full(const LineBatch& b) {
    if (b.jobs.size() >= kBatchEvents || b.bytes.size() >= kBatchBytes) submit();
}

void ParallelLineWriter::submit() {
    {
        std::lock_guard lock(mu_);
        slot(filled_).state = State::queued;
        ++filled_;
    }
    if (!workers_.empty()) work_cv_.notify_one();
    write_done(false);
    // The next slot to fill must be free: the oldest batch is written first if it holds it.
    if (filled_ - written_ == slots_.size()) write_done(true);
}

void ParallelLineWriter::format_batch(LineBatch& b) const {
    const std::span<const LineJob> jobs(b.jobs);
    size_t i = 0;
    while (i < jobs.size()) {
        if (jobs[i].text) {
            b.text.append(reinterpret_cast<const char*>(b.bytes.data()) + jobs[i].offset, jobs[i].size);
            ++i;
            continue;
        }
        size_t end = i + 1;
        while (end < jobs.size() && !jobs[end].text) ++end;
        format_(b, jobs.subspan(i, end - i), b.text);
        i = end;
    }
}

void ParallelLineWriter::write_done(bool wait_one) {
    for (;;) {
        Slot* s = nullptr;
        {
            std::unique_lock lock(mu_);
            if (written_ == filled_) return;
            s = &slot(written_);
            if (s->state != State::done) {
                if (!wait_one) return;
                if (taken_ < filled_) {
                    // Rather than wait, format the oldest batch no worker has taken yet.
                    Slot& t = slot(taken_++);
                    lock.unlock();
                    format_batch(t.batch);
                    lock.lock();
                    t.state = State::done;
                    continue;
                }
                done_cv_.wait(lock, [&] { return s->state == State::done; });
            }
        }
        out_.append_unbuffered(s->batch.text.view());
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
    if (!slot(filled_).batch.jobs.empty()) submit();
    while (written_ < filled_) write_done(true);
}

void ParallelLineWriter::work() {
    for (;;) {
        Slot* s = nullptr;
        {
            std::unique_lock lock(mu_);
            work_cv_.wait(lock, [&] { return stop_ || taken_ < filled_; });
            if (stop_) return;
            s = &slot(taken_);
            ++taken_;
        }
        format_batch(s->batch);
        {
            std::lock_guard lock(mu_);
            s->state = State::done;
        }
        done_cv_.notify_all();
    }
}

}  // namespace ringscope::output
