#include "framework/tasks/tgid_tracker.hpp"

namespace ringscope::tasks {

namespace {

constexpr uint64_t kCloneThread = 0x00010000;  // include/uapi/linux/sched.h

}  // namespace

TgidTracker::TgidTracker(const engine::TraceFile& file) {
    if (const EventType* e = file.find_type("task", "task_newtask")) {
        newtask_pid_ = e->handle("pid");
        clone_flags_ = e->handle("clone_flags");
        if (newtask_pid_ && clone_flags_) newtask_ = e->id;
    }
    if (const EventType* e = file.find_type("sched", "sched_process_exec")) {
        exec_pid_ = e->handle("pid");
        if (exec_pid_) exec_ = e->id;
    }
}

std::optional<TaskChange> TgidTracker::change(const Event& ev) const {
    const uint32_t id = ev.id();
    if (id == newtask_) {
        // The event fires in the creator (common_pid), before the new task runs.
        const auto child = static_cast<int32_t>(ev.integer(newtask_pid_));
        return TaskChange{child, ev.pid(), (ev.u64(clone_flags_) & kCloneThread) != 0};
    }
    if (id == exec_) {
        // After exec the task is its process's leader: pid is the tgid (a thread that execs takes
        // its leader's pid; old_pid is gone).
        const auto pid = static_cast<int32_t>(ev.integer(exec_pid_));
        return TaskChange{pid, pid, false};
    }
    return std::nullopt;
}

void TgidTracker::apply(const TaskChange& c) {
    tgid_[c.pid] = c.thread ? tgid(c.creator) : c.pid;
}

int32_t TgidTracker::tgid(int32_t pid) const {
    auto it = tgid_.find(pid);
    return it == tgid_.end() ? pid : it->second;
}

}  // namespace ringscope::tasks
