// Scheduler analyses over sched_switch / sched_wakeup(_new) / sched_migrate_task:
// wakeup latency, runtime per task and CPU, and per-CPU busy time in windows. Each is an
// EventHandler (fed in time order, results as tables) with a mergeable state.
//
// Several inputs (files) are shards: what is in flight (a pending wakeup, the task on a CPU) is
// followed per input, since pids and CPUs of one recording say nothing about another's, while the
// results add up across inputs (tasks by pid, CPUs by number). So one run over several files gives
// exactly what merging the partial results of one run per file gives (save_state/load_state/merge).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <ringscope/analysis.hpp>
#include <ringscope/error.hpp>
#include <ringscope/handler.hpp>
#include <ringscope/input_index.hpp>
#include <ringscope/log_histogram.hpp>
#include <ringscope/text_escape.hpp>

namespace ringscope::sched {

// Bounds on what sizes memory, checked before any event is read (`sched ...` and `run --check`).
inline constexpr size_t kMaxTop = 100'000;          // worst wakeups listed
inline constexpr uint64_t kMinWindowNs = 1'000;     // a timeline window: 1us at least
inline constexpr uint64_t kMaxWindows = 1'000'000;  // a timeline's windows per input

// A pid's comm: the one seen last in time (the larger text on a tie), so the answer does not
// depend on the order inputs are read or merged in.
struct TaskName {
    std::string comm;
    uint64_t ts = 0;
    bool set = false;

    void update(std::string_view raw, uint64_t t) {
        // A comm is data from the trace (any process sets its own): kept as valid UTF-8, bytes that
        // are not as \xHH, so that every output (JSON, partial results) can carry it.
        std::string c = escaped(raw, TextTarget::utf8);
        if (set && (t < ts || (t == ts && c <= comm))) return;
        comm = std::move(c);
        ts = t;
        set = true;
    }
    void merge(const TaskName& o) {
        if (o.set) update(o.comm, o.ts);
    }
};

// The first and last timestamps seen (of one input, or of all).
struct TimeSpan {
    bool seen = false;
    uint64_t first = 0, last = 0;

    void see(uint64_t ts) {
        if (!seen || ts < first) first = ts;
        if (!seen || ts > last) last = ts;
        seen = true;
    }
    void merge(const TimeSpan& o) {
        if (!o.seen) return;
        see(o.first);
        see(o.last);
    }
};

// The key of something in flight in one input (a pid or a CPU of that input).
inline uint64_t input_key(size_t input, int id) {
    return (static_cast<uint64_t>(input) << 32) | static_cast<uint32_t>(id);
}

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
        TaskName name;
        LogHistogram hist;
    };

    explicit LatencyAnalysis(size_t top = 10) : top_(top) {}
    std::string_view name() const override { return "sched.latency"; }
    std::vector<EventMatch> subscriptions() const override {
        return {{"sched", "sched_wakeup"}, {"sched", "sched_wakeup_new"}, {"sched", "sched_switch"}};
    }
    void on_event(const Event& ev) override { on_input_event(input_index_.of(ev), ev); }
    // An event of input number `input` (the file it comes from).
    void on_input_event(size_t input, const Event& ev);
    void end(ResultSink& sink) override;

    // Several files or shards: exact counts/min/max/mean, percentiles within the histogram bound.
    void merge(const LatencyAnalysis& other);
    nlohmann::json save_state() const;
    Status load_state(const nlohmann::json& state);

    const LogHistogram& overall() const noexcept { return overall_; }
    const std::map<int, Task>& tasks() const noexcept { return tasks_; }
    // Worst first: the largest latency, then the most wakeups, then the pid.
    std::vector<std::pair<int, const Task*>> tasks_worst_first() const;
    const std::vector<Wakeup>& worst() const noexcept { return worst_; }  // largest first
    size_t top() const noexcept { return top_; }
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
    InputIndex input_index_;                         // the inputs of on_event() (a run over several files)
    std::unordered_map<uint64_t, Pending> pending_;  // by input_key(input, pid)
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
        TaskName name;
        uint64_t runtime_ns = 0, switches = 0, voluntary = 0, preempted = 0, migrations = 0;
    };
    struct Cpu {
        uint64_t busy_ns = 0, switches = 0;
    };

    std::string_view name() const override { return "sched.runtime"; }
    std::vector<EventMatch> subscriptions() const override { return {{"", ""}}; }
    void on_event(const Event& ev) override { on_input_event(input_index_.of(ev), ev); }
    void on_input_event(size_t input, const Event& ev);
    // Charges the tasks still on a CPU up to their input's last event; end() does it too.
    void finish();
    void end(ResultSink& sink) override;

    void merge(const RuntimeAnalysis& other);
    nlohmann::json save_state() const;
    Status load_state(const nlohmann::json& state);

    uint64_t first_ts() const noexcept { return span_.first; }
    uint64_t last_ts() const noexcept { return span_.last; }
    const std::map<int, Task>& tasks() const noexcept { return tasks_; }
    // Worst first: the largest latency, then the most wakeups, then the pid.
    std::vector<std::pair<int, const Task*>> tasks_worst_first() const;
    const std::map<int, Cpu>& cpus() const noexcept { return cpus_; }

  private:
    struct Running {
        int pid = -1;
        uint64_t since = 0;
    };
    struct Input {
        TimeSpan span;
        std::map<int, Running> running;         // by CPU
        std::unordered_map<int, int> last_cpu;  // by pid
        bool migrate_events = false;
    };
    TimeSpan span_;           // over all inputs
    InputIndex input_index_;  // the inputs of on_event() (a run over several files)
    std::vector<Input> inputs_;
    std::map<int, Task> tasks_;
    std::map<int, Cpu> cpus_;
};

// Per-CPU busy fraction (time not running the idle task) in windows of `window_ns`. Windows are
// aligned on absolute time (multiples of the window), so the windows of different shards line up.
// Only windows some input covers are listed, each with the length covered (the first and last of a
// trace are cut), so shards recorded hours apart do not list the hours between them.
class TimelineAnalysis final : public EventHandler {
  public:
    explicit TimelineAnalysis(uint64_t window_ns) : window_(window_ns ? window_ns : 1) {}
    std::string_view name() const override { return "sched.timeline"; }
    std::vector<EventMatch> subscriptions() const override { return {{"", ""}}; }
    void on_event(const Event& ev) override { on_input_event(input_index_.of(ev), ev); }
    void on_input_event(size_t input, const Event& ev);
    // Counts the CPUs still busy up to their input's last event and keeps the inputs' time spans;
    // end() does it too.
    void finish();
    void end(ResultSink& sink) override;

    uint64_t window_ns() const noexcept { return window_; }
    // An input spanned more than kMaxWindows windows: it stopped counting (memory stays bounded),
    // and end() gives a table "sched.timeline.error" saying so.
    bool overflowed() const noexcept { return overflowed_; }
    std::string overflow_message() const;
    void merge(const TimelineAnalysis& other);
    nlohmann::json save_state() const;
    Status load_state(const nlohmann::json& state);

  private:
    struct Input {
        TimeSpan span;
        std::map<int, std::pair<bool, uint64_t>> state;  // cpu -> (busy, since)
    };
    void add_busy(int cpu, uint64_t from, uint64_t to);

    uint64_t window_;
    bool overflowed_ = false;
    uint64_t overflow_span_ = 0;  // the span of the input that overflowed
    InputIndex input_index_;  // the inputs of on_event() (a run over several files)
    std::vector<Input> inputs_;
    std::vector<std::pair<uint64_t, uint64_t>> spans_;  // [first, last] of each finished input
    std::map<int, std::map<uint64_t, uint64_t>> busy_;  // cpu -> window number (ts / window) -> busy ns
};

// sched.latency (top), sched.runtime and sched.timeline (window) for `ringscope run`, which feeds
// them from its one pass over the inputs; `ringscope sched ...` runs the same classes.
std::vector<AnalysisSpec> analysis_specs();

}  // namespace ringscope::sched
