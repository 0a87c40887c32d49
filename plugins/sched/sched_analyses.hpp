// Scheduler analyses over sched_switch / sched_wakeup(_new) / sched_migrate_task:
// wakeup latency, runtime per task and CPU, and per-CPU busy time in windows. Each is an
// EventHandler (fed in time order, results as tables) with a mergeable state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <ringscope/handler.hpp>
#include <ringscope/log_histogram.hpp>

namespace ringscope::sched {

// Latency = from a pid's sched_wakeup or sched_wakeup_new to the next sched_switch that runs it;
// a second wakeup before it runs does not restart the clock (trace-cmd report -w restarts it, and
// so does `report -w`: see WakeupLatencyReport).
class LatencyAnalysis final : public EventHandler {
public:
    struct Wakeup {
        uint64_t latency_ns, wakeup_ts, switch_ts;
        int cpu, pid;
        std::string comm;
    };
    struct Task {
        std::string comm;
        LogHistogram hist;
    };

    explicit LatencyAnalysis(size_t top = 10) : top_(top) {}
    std::string_view name() const override { return "sched.latency"; }
    std::vector<EventMatch> subscriptions() const override {
        return {{"sched", "sched_wakeup"}, {"sched", "sched_wakeup_new"}, {"sched", "sched_switch"}};
    }
    void on_event(const Event& ev) override;
    void end(ResultSink& sink) override;

    // Several files or shards: exact counts/min/max/mean, percentiles within the histogram bound.
    void merge(const LatencyAnalysis& other);

    const LogHistogram& overall() const noexcept { return overall_; }
    const std::map<int, Task>& tasks() const noexcept { return tasks_; }
    const std::vector<Wakeup>& worst() const noexcept { return worst_; }  // largest first
    size_t top() const noexcept { return top_; }
    std::map<int, Task>& mutable_tasks() noexcept { return tasks_; }
    LogHistogram& mutable_overall() noexcept { return overall_; }
    void add_worst(Wakeup w);

private:
    struct Pending {
        uint64_t ts;
        int cpu;
    };
    struct Handles {
        FieldHandle pid, next_pid, next_comm;
    };
    const Handles& handles(const EventType& t);

    size_t top_;
    std::unordered_map<int, Pending> pending_;
    LogHistogram overall_;
    std::map<int, Task> tasks_;
    std::vector<Wakeup> worst_;
    std::unordered_map<const EventType*, Handles> handles_;
};

// On-CPU time per task and per CPU, context switches (voluntary vs preempted, from prev_state),
// migrations.
class RuntimeAnalysis final : public EventHandler {
public:
    struct Task {
        std::string comm;
        uint64_t runtime_ns = 0, switches = 0, voluntary = 0, preempted = 0, migrations = 0;
        int last_cpu = -1;
    };
    struct Cpu {
        uint64_t busy_ns = 0, switches = 0;
    };

    std::string_view name() const override { return "sched.runtime"; }
    std::vector<EventMatch> subscriptions() const override { return {{"", ""}}; }
    void on_event(const Event& ev) override;
    void end(ResultSink& sink) override;

    uint64_t first_ts() const noexcept { return first_ts_; }
    uint64_t last_ts() const noexcept { return last_ts_; }
    const std::map<int, Task>& tasks() const noexcept { return tasks_; }
    const std::map<int, Cpu>& cpus() const noexcept { return cpus_; }

private:
    struct Running {
        int pid = -1;
        uint64_t since = 0;
    };
    void close_all();

    bool seen_ = false;
    uint64_t first_ts_ = 0, last_ts_ = 0;
    std::map<int, Running> running_;  // by CPU
    std::map<int, Task> tasks_;
    std::map<int, Cpu> cpus_;
    bool migrate_events_ = false;
};

// Per-CPU busy fraction (time not running the idle task) in windows of `window_ns`.
class TimelineAnalysis final : public EventHandler {
public:
    explicit TimelineAnalysis(uint64_t window_ns) : window_(window_ns ? window_ns : 1) {}
    std::string_view name() const override { return "sched.timeline"; }
    std::vector<EventMatch> subscriptions() const override { return {{"", ""}}; }
    void on_event(const Event& ev) override;
    void end(ResultSink& sink) override;

private:
    void add_busy(int cpu, uint64_t from, uint64_t to);

    uint64_t window_;
    bool seen_ = false;
    uint64_t first_ts_ = 0, last_ts_ = 0;
    std::map<int, std::pair<bool, uint64_t>> state_;   // cpu -> (busy, since)
    std::map<int, std::vector<uint64_t>> busy_;         // cpu -> busy ns per window
};

}  // namespace ringscope::sched
