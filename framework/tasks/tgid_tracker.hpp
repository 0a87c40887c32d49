// Which process (tgid) each task belongs to, from the trace's own events: trace.dat keeps no
// thread groups (trace-cmd 3.1.6 saves no tgid map), but task_newtask says how each task was made
// (clone_flags with CLONE_THREAD: a thread of its creator's process) and sched_process_exec that a
// task leads its process from then on. The viewer and the Perfetto writer both group by it.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include <ringscope/event.hpp>

#include "framework/engine/trace_file.hpp"

namespace ringscope::tasks {

// What one event says about a task's process, apart from the event: a writer whose events come
// per CPU keeps these and applies them in time order at the end.
struct TaskChange {
    int32_t pid = 0;
    int32_t creator = 0;  // the task that made PID (task_newtask), or PID itself (exec)
    bool thread = false;  // PID joins its creator's process; else it leads its own
};

class TgidTracker {
  public:
    explicit TgidTracker(const engine::TraceFile& file);

    // What EV (an event of the file) says, if anything. Reads only the event.
    std::optional<TaskChange> change(const Event& ev) const;
    // Changes, in time order.
    void apply(const TaskChange& c);
    void feed(const Event& ev) {
        if (auto c = change(ev)) apply(*c);
    }
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

}  // namespace ringscope::tasks
