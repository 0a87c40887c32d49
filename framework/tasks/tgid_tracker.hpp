// Which process (tgid) each task belongs to, from the trace's own events: trace.dat keeps no
// thread groups (trace-cmd 3.1.6 saves no tgid map), but task_newtask says how each task was made
// (clone_flags with CLONE_THREAD: a thread of its creator's process) and sched_process_exec that a
// task leads its process from then on. The viewer and the Perfetto writer both group by it. The same
// events give each process made in the trace its parent process: task_newtask without CLONE_THREAD
// (its creator's process; CLONE_PARENT: the creator's parent), or sched_process_fork (parent_pid's
// process) in a trace recorded without task_newtask.
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
    // PID's parent process is its creator's parent (CLONE_PARENT), not its creator's process.
    bool sibling = false;
    bool fork = false;  // sched_process_fork: only PID's parent process, nothing of its tgid
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
    // The parent process of process TGID, when the events made it.
    std::optional<int32_t> parent(int32_t tgid) const;

  private:
    uint32_t newtask_ = UINT32_MAX, exec_ = UINT32_MAX, fork_ = UINT32_MAX;
    FieldHandle newtask_pid_, clone_flags_, exec_pid_, fork_parent_, fork_child_;
    std::unordered_map<int32_t, int32_t> tgid_;
    std::unordered_map<int32_t, int32_t> parent_;  // process -> its parent process
};

}  // namespace ringscope::tasks
