// Who runs on each CPU and the state of each task, from sched_switch and the wakeups, event by event
// in time order: what the viewer's summaries and its exact answers both come from.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include <ringscope/event.hpp>

#include "framework/engine/trace_file.hpp"

namespace ringscope::view {

enum class TaskState : uint8_t;

// The sched events of one file and their fields.
struct SchedTypes {
    uint32_t sched_switch = UINT32_MAX, wakeup = UINT32_MAX, wakeup_new = UINT32_MAX;
    FieldHandle prev_pid, prev_state, next_pid, woken_pid, woken_new_pid;

    static SchedTypes of(const engine::TraceFile& file);
};

class SchedTracker {
  public:
    SchedTracker(const std::vector<SchedTypes>& sched, size_t lanes) : sched_(sched), lanes_(lanes) {}

    // A lane ran PID in [A, B) (pid 0, idle, is not reported).
    std::function<void(size_t lane, int32_t pid, uint64_t a, uint64_t b)> on_slice;
    // Task PID (a task id: view_index.hpp's task_id) was in state S in [A, B), then in NEXT (== S:
    // the span ends without a change).
    std::function<void(int32_t pid, TaskState s, uint64_t a, uint64_t b, TaskState next)> on_state;
    // Task PID, woken at A (sched_wakeup), ran at B.
    std::function<void(int32_t pid, uint64_t a, uint64_t b)> on_wakeup_latency;

    // Starting points (an exact answer that starts inside the trace).
    void set_running(size_t lane, int32_t pid, uint64_t since) { lanes_[lane] = {pid, since}; }
    void set_state(int32_t pid, TaskState s, uint64_t since) { tasks_[pid] = {s, since}; }

    void feed(size_t lane, size_t file, const Event& ev);
    // Closes every open slice and span at END.
    void finish(uint64_t end);

  private:
    struct Running {
        int32_t pid = -1;  // -1: not known yet
        uint64_t since = 0;
    };
    struct Task {
        TaskState state;
        uint64_t since = 0;
        uint64_t woken = UINT64_MAX;  // the wakeup not yet followed by a switch-in
    };
    void move(int32_t pid, TaskState s, uint64_t ts);

    const std::vector<SchedTypes>& sched_;
    std::vector<Running> lanes_;
    std::unordered_map<int32_t, Task> tasks_;
};

}  // namespace ringscope::view
