#include "framework/tasks/tgid_tracker.hpp"

namespace ringscope::tasks {

namespace {

constexpr uint64_t kCloneThread = 0x00010000;  // include/uapi/linux/sched.h
constexpr uint64_t kCloneParent = 0x00008000;

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
    // task_newtask says more (clone_flags): sched_process_fork is read only without it.
    if (const EventType* e = file.find_type("sched", "sched_process_fork"); e && newtask_ == UINT32_MAX) {
        fork_parent_ = e->handle("parent_pid");
        fork_child_ = e->handle("child_pid");
        if (fork_parent_ && fork_child_) fork_ = e->id;
    }
}

std::optional<TaskChange> TgidTracker::change(const Event& ev) const {
    const uint32_t id = ev.id();
    if (id == newtask_) {
        // The event fires in the creator (common_pid), before the new task runs.
        const auto child = static_cast<int32_t>(ev.integer(newtask_pid_));
        const uint64_t flags = ev.u64(clone_flags_);
        return TaskChange{child, ev.pid(), (flags & kCloneThread) != 0, (flags & kCloneParent) != 0};
    }
    if (id == fork_) {
        // Fires in the parent after the child is made; without clone_flags a thread cannot be told
        // from a process, so the child is taken to lead its own (as tgid() takes every such task).
        const auto child = static_cast<int32_t>(ev.integer(fork_child_));
        const auto parent = static_cast<int32_t>(ev.integer(fork_parent_));
        return TaskChange{child, parent, false, false, true};
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
    const int32_t creator = tgid(c.creator);
    if (c.fork) {
        parent_[c.pid] = creator;
        return;
    }
    if (c.pid == c.creator) {  // exec: the task leads its process, whose parent stays
        tgid_[c.pid] = c.pid;
        return;
    }
    tgid_[c.pid] = c.thread ? creator : c.pid;
    if (c.thread) return;
    if (!c.sibling) {
        parent_[c.pid] = creator;
    } else if (auto p = parent(creator)) {
        parent_[c.pid] = *p;
    } else {
        parent_.erase(c.pid);  // the creator's parent is not known
    }
}

std::optional<int32_t> TgidTracker::parent(int32_t tgid) const {
    auto it = parent_.find(tgid);
    if (it == parent_.end()) return std::nullopt;
    return it->second;
}

int32_t TgidTracker::tgid(int32_t pid) const {
    auto it = tgid_.find(pid);
    return it == tgid_.end() ? pid : it->second;
}

}  // namespace ringscope::tasks
