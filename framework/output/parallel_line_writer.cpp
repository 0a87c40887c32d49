#include "framework/output/parallel_line_writer.hpp"

namespace ringscope::output {

// What readers keep of the writer: it may outlive it (post() then returns false).
class ParallelLineWriter::Runner final : public io::TaskRunner {
  public:
    explicit Runner(ParallelLineWriter* w) : writer_(w) {}
    bool post(std::function<void()> task) override {
        std::lock_guard lock(mu_);
        return writer_ && writer_->post(std::move(task));
    }
    void detach() {
        std::lock_guard lock(mu_);
        writer_ = nullptr;
    }

  private:
    std::mutex mu_;
    ParallelLineWriter* writer_;
};

ParallelLineWriter::ParallelLineWriter(OutputBuffer& out, int threads, Format format)
    : out_(out), format_(std::move(format)), runner_(std::make_shared<Runner>(this)) {
    const int n = threads < 1 ? 1 : threads;
    // Two batches per thread keep the workers busy while the oldest is written out.
    for (int i = 0; i < 2 * n + 2; ++i) slots_.push_back(std::make_unique<Slot>());
    for (int i = 1; i < n; ++i) workers_.emplace_back([this] { work(); });
}

ParallelLineWriter::~ParallelLineWriter() {
    runner_->detach();
    {
        std::lock_guard lock(mu_);
        stop_ = true;
        tasks_.clear();
        pending_tasks_.store(0, std::memory_order_relaxed);
    }
    work_cv_.notify_all();
    for (auto& t : workers_) t.join();
}

std::shared_ptr<io::TaskRunner> ParallelLineWriter::task_runner() const {
    return runner_;
}

bool ParallelLineWriter::post(std::function<void()> task) {
    if (workers_.empty()) return false;
    {
        std::lock_guard lock(mu_);
        if (stop_) return false;
        tasks_.push_back(std::move(task));
        pending_tasks_.store(tasks_.size(), std::memory_order_relaxed);
    }
    work_cv_.notify_one();
    return true;
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

void ParallelLineWriter::format_batch(LineBatch& b) {
    const std::span<const LineJob> jobs(b.jobs);
    size_t i = 0;
    while (i < jobs.size()) {
        if (jobs[i].text) {
            b.text.append(reinterpret_cast<const char*>(b.bytes.data()) + jobs[i].offset, jobs[i].size);
            ++i;
            continue;
        }
        size_t end = i + 1;
        while (end < jobs.size() && !jobs[end].text && end - i < kTaskCheckEvents) ++end;
        format_(b, jobs.subspan(i, end - i), b.text);
        i = end;
        if (pending_tasks_.load(std::memory_order_relaxed)) run_tasks();
    }
}

std::function<void()> ParallelLineWriter::pop_task() {
    if (tasks_.empty()) return {};
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    pending_tasks_.store(tasks_.size(), std::memory_order_relaxed);
    return task;
}

void ParallelLineWriter::run_tasks() {
    for (;;) {
        std::function<void()> task;
        {
            std::lock_guard lock(mu_);
            task = pop_task();
        }
        if (!task) return;
        task();
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
                if (std::function<void()> task = pop_task()) {
                    // Rather than wait, decompress a chunk the merge will need.
                    lock.unlock();
                    task();
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
        std::function<void()> task;
        {
            std::unique_lock lock(mu_);
            work_cv_.wait(lock, [&] { return stop_ || !tasks_.empty() || taken_ < filled_; });
            if (stop_) return;
            // The merging thread waits for these: they go before any batch.
            task = pop_task();
            if (!task) {
                s = &slot(taken_);
                ++taken_;
            }
        }
        if (task) {
            task();
            continue;
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
