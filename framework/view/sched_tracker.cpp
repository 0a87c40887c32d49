#include "framework/view/sched_tracker.hpp"

#include "framework/view/view_index.hpp"

namespace ringscope::view {

SchedTypes SchedTypes::of(const engine::TraceFile& file) {
    SchedTypes t;
    if (const EventType* e = file.find_type("sched", "sched_switch")) {
        t.sched_switch = e->id;
        t.prev_pid = e->handle("prev_pid");
        t.prev_state = e->handle("prev_state");
        t.next_pid = e->handle("next_pid");
        if (!t.prev_pid || !t.next_pid) t.sched_switch = UINT32_MAX;
    }
    if (const EventType* e = file.find_type("sched", "sched_wakeup")) {
        t.wakeup = e->id;
        t.woken_pid = e->handle("pid");
        if (!t.woken_pid) t.wakeup = UINT32_MAX;
    }
    if (const EventType* e = file.find_type("sched", "sched_wakeup_new")) {
        t.wakeup_new = e->id;
        t.woken_new_pid = e->handle("pid");
        if (!t.woken_new_pid) t.wakeup_new = UINT32_MAX;
    }
    return t;
}

namespace {

// prev_state as the tracepoint reports it: 0 (or only the preempted bit above the state bits) is
// still runnable; TASK_UNINTERRUPTIBLE (2) is blocked; anything else sleeps (S, I, stopped, dead).
TaskState switched_out(int64_t prev_state) {
    const int64_t low = prev_state & 0xff;
    if (low == 0) return TaskState::runnable;
    if (low & 2) return TaskState::blocked;
    return TaskState::sleeping;
}

}  // namespace

void SchedTracker::move(int32_t pid, TaskState s, uint64_t ts) {
    if (pid == 0) return;  // the idle tasks have no lane
    auto [it, fresh] = tasks_.try_emplace(pid, Task{TaskState::unknown, ts});
    Task& t = it->second;
    if (!fresh && t.state == s) return;
    if (s == TaskState::running && t.woken != UINT64_MAX && on_wakeup_latency && ts >= t.woken)
        on_wakeup_latency(pid, t.woken, ts);
    t.woken = UINT64_MAX;
    if (on_state && ts >= t.since) on_state(pid, t.state, t.since, ts, s);
    t.state = s;
    t.since = ts;
}

void SchedTracker::feed(size_t lane, size_t file, const Event& ev) {
    const SchedTypes& st = sched_[file];
    const uint32_t id = ev.id();
    const uint64_t ts = ev.timestamp();
    if (id == st.sched_switch) {
        const auto prev = static_cast<int32_t>(ev.integer(st.prev_pid));
        const auto next = static_cast<int32_t>(ev.integer(st.next_pid));
        Running& r = lanes_[lane];
        if (r.pid > 0 && on_slice && ts > r.since) on_slice(lane, r.pid, r.since, ts);
        r = {next, ts};
        if (file <= kMaxTaskFiles) {  // each file's tasks apart: a guest's pids are another machine's
            move(prev == 0 ? 0 : task_id(file, prev),
                 st.prev_state ? switched_out(ev.integer(st.prev_state)) : TaskState::sleeping, ts);
            move(next == 0 ? 0 : task_id(file, next), TaskState::running, ts);
        }
    } else if (file <= kMaxTaskFiles && (id == st.wakeup || id == st.wakeup_new)) {
        const auto woken =
            static_cast<int32_t>(ev.integer(id == st.wakeup ? st.woken_pid : st.woken_new_pid));
        if (woken == 0) return;
        const int32_t pid = task_id(file, woken);
        auto it = tasks_.find(pid);
        if (it == tasks_.end() || it->second.state != TaskState::running) {
            const bool waiting = it != tasks_.end() && it->second.state == TaskState::runnable;
            move(pid, TaskState::runnable, ts);
            if (!waiting) tasks_[pid].woken = ts;
        }
    }
}

void SchedTracker::finish(uint64_t end) {
    for (size_t lane = 0; lane < lanes_.size(); ++lane) {
        Running& r = lanes_[lane];
        if (r.pid > 0 && on_slice && end > r.since) on_slice(lane, r.pid, r.since, end);
        r.pid = -1;
    }
    for (auto& [pid, t] : tasks_)
        if (on_state && t.state != TaskState::unknown && end > t.since)
            on_state(pid, t.state, t.since, end, t.state);
    tasks_.clear();
}

}  // namespace ringscope::view
