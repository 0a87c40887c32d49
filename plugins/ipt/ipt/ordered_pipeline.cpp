#include "ipt/ordered_pipeline.hpp"

namespace ringscope::ipt {

OrderedPipeline::OrderedPipeline(size_t n, unsigned threads, size_t window, std::function<void(size_t)> work)
    : n_(n), window_(window < 1 ? 1 : window), work_(std::move(work)), done_(n, 0) {
    if (threads < 1) threads = 1;
    for (unsigned t = 0; t < threads; ++t) pool_.emplace_back([this] { worker(); });
}

OrderedPipeline::~OrderedPipeline() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    for (auto& t : pool_) t.join();
}

void OrderedPipeline::worker() {
    std::unique_lock lock(mutex_);
    for (;;) {
        auto can_go = [&] { return stopping_ || next_ >= n_ || next_ < released_ + window_; };
        if (!can_go()) ++blocked_.workers;
        changed_.wait(lock, can_go);
        if (stopping_ || next_ >= n_) return;
        size_t i = next_++;
        lock.unlock();
        work_(i);
        lock.lock();
        done_[i] = 1;
        changed_.notify_all();
    }
}

void OrderedPipeline::wait(size_t i) {
    std::unique_lock lock(mutex_);
    if (!done_[i]) ++blocked_.caller;
    changed_.wait(lock, [&] { return done_[i] != 0; });
}

bool OrderedPipeline::ready(size_t i) {
    std::lock_guard lock(mutex_);
    return done_[i] != 0;
}

bool OrderedPipeline::claim(size_t i) {
    std::lock_guard lock(mutex_);
    // Items start in order: next_ is the first not started.
    if (i != next_ || i >= n_) return false;
    next_ = i + 1;
    done_[i] = 1;
    return true;
}

OrderedPipeline::Blocked OrderedPipeline::blocked() {
    std::lock_guard lock(mutex_);
    return blocked_;
}

void OrderedPipeline::release(size_t i) {
    {
        std::lock_guard lock(mutex_);
        if (i + 1 > released_) released_ = i + 1;
    }
    changed_.notify_all();
}

}  // namespace ringscope::ipt
