// Which process (tgid) each host task belongs to, from the trace's own events: trace.dat keeps no
// thread groups (trace-cmd 3.1.6 saves no tgid map), but task_newtask says how each task was made
// (clone_flags with CLONE_THREAD: a thread of its creator's process) and sched_process_exec that a
// task leads its process from then on.
#pragma once

#include <cstdint>
#include <unordered_map>

#include <ringscope/event.hpp>

#include "framework/engine/trace_file.hpp"

namespace ringscope::view {

class TgidTracker {
  public:
    explicit TgidTracker(const engine::TraceFile& host);

    // An event of the host file, in time order.
    void feed(const Event& ev);
    // PID's process: what the events said, else PID itself (a task made before the trace began, or
    // without task_newtask recorded, is taken to lead its own process).
    int32_t tgid(int32_t pid) const;
    // Whether the events said which process PID belongs to.
    bool known(int32_t pid) const { return tgid_.count(pid) != 0; }

  private:
    uint32_t newtask_ = UINT32_MAX, exec_ = UINT32_MAX;
    FieldHandle newtask_pid_, clone_flags_, exec_pid_;
    std::unordered_map<int32_t, int32_t> tgid_;
};

}  // namespace ringscope::view
