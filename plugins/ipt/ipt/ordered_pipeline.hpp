// Work items 0..n-1 done on worker threads while the caller takes their results in order, with at
// most `window` items started and not yet released (bounded memory). The caller pulls: wait(i),
// use item i's result, release(i); or claim(i) an item no worker has started yet.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ringscope::ipt {

class OrderedPipeline {
  public:
    OrderedPipeline(size_t n, unsigned threads, size_t window, std::function<void(size_t)> work);
    // Items not started yet are not started; the workers finish the ones they are on.
    ~OrderedPipeline();
    OrderedPipeline(const OrderedPipeline&) = delete;
    OrderedPipeline& operator=(const OrderedPipeline&) = delete;

    // Blocks until item i is done.
    void wait(size_t i);
    // Whether item i is done, without waiting.
    bool ready(size_t i);
    // True when no worker had started item i: it is then never run, and counts as done (the
    // caller does its work some other way). The caller asks in order, before wait(i).
    bool claim(size_t i);
    // Items up to i are no longer needed: more may start.
    void release(size_t i);

    // How often the caller's wait() found its item not done, and a worker found the window full
    // (each a sleep on the condition variable): hand-overs that cost a wake-up.
    struct Blocked {
        size_t caller = 0, workers = 0;
    };
    Blocked blocked();

  private:
    void worker();

    size_t n_;
    size_t window_;
    std::function<void(size_t)> work_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<char> done_;
    size_t next_ = 0, released_ = 0;
    bool stopping_ = false;
    Blocked blocked_;
    std::vector<std::thread> pool_;
};

}  // namespace ringscope::ipt
