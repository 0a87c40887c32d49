#include "framework/output/slice_writer.hpp"

namespace ringscope::output {

SliceWriter::SliceWriter(int threads, size_t text_capacity) : threads_(threads < 1 ? 1 : threads) {
    for (int i = 0; i <= threads_; ++i) slots_.push_back(std::make_unique<Slot>(text_capacity));
}

SliceWriter::~SliceWriter() = default;

void SliceWriter::work(size_t worker, size_t count, const Produce& produce) {
    std::unique_lock lock(mu_);
    for (;;) {
        work_cv_.wait(lock, [&] { return stop_ || (next_ < count && next_ < written_ + slots_.size()); });
        if (stop_) return;
        const size_t index = next_++;
        const size_t slot = index % slots_.size();
        Slot& s = *slots_[slot];
        s.state = State::working;
        lock.unlock();
        s.text.clear();
        const bool exact = produce(worker, slot, index, s.text);
        lock.lock();
        s.exact = exact;
        s.state = State::done;
        done_cv_.notify_all();
    }
}

size_t SliceWriter::run(size_t count, OutputBuffer& out, const Produce& produce, const Accept& accept) {
    next_ = written_ = 0;
    stop_ = false;
    cancel_.store(false, std::memory_order_relaxed);
    for (auto& s : slots_) s->state = State::free;
    std::vector<std::thread> workers;
    for (int w = 0; w < threads_; ++w)
        workers.emplace_back([this, w, count, &produce] { work(static_cast<size_t>(w), count, produce); });
    size_t written = 0;
    for (; written < count; ++written) {
        const size_t slot = written % slots_.size();
        Slot& s = *slots_[slot];
        {
            std::unique_lock lock(mu_);
            done_cv_.wait(lock, [&] { return s.state == State::done; });
        }
        if (!s.exact || !accept(slot, written)) break;
        out.append_unbuffered(s.text.view());
        if (out.failed()) break;
        {
            std::lock_guard lock(mu_);
            s.state = State::free;
            written_ = written + 1;
        }
        work_cv_.notify_all();
    }
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cancel_.store(true, std::memory_order_relaxed);
    work_cv_.notify_all();
    for (auto& t : workers) t.join();
    return written;
}

}  // namespace ringscope::output
