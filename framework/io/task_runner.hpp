// Where a reader may hand work to run ahead of its caller on another thread (report -j's
// workers decompress the next chunk of each CPU while the merging thread walks the current one).
#pragma once

#include <functional>

namespace ringscope::io {

class TaskRunner {
  public:
    virtual ~TaskRunner() = default;
    // Queues TASK for some other thread. False when the runner takes no more work: the caller
    // then does the work itself. A queued task may be dropped unrun when the runner stops, so a
    // task must not be the only way its result is produced.
    virtual bool post(std::function<void()> task) = 0;
};

}  // namespace ringscope::io
