#include "sched_analyses.hpp"

#include <algorithm>
#include <memory>
#include <tuple>

#include <ringscope/result.hpp>

#include <ringscope/task_state.hpp>

namespace ringscope::sched {

// ---- latency ---------------------------------------------------------------------------------

const LatencyAnalysis::Handles& LatencyAnalysis::handles(const EventType& t) {
    auto it = handles_.find(&t);
    if (it == handles_.end())
        it =
            handles_.emplace(&t, Handles{t.handle("pid"), t.handle("next_pid"), t.handle("next_comm")}).first;
    return it->second;
}

void LatencyAnalysis::add_worst(Wakeup w) {
    if (top_ == 0) return;
    // A total order, so the worst N of merged shards are those of one run whatever the merge order.
    auto by_latency = [](const Wakeup& a, const Wakeup& b) {
        if (a.latency_ns != b.latency_ns) return a.latency_ns > b.latency_ns;
        return std::tie(a.switch_ts, a.wakeup_ts, a.cpu, a.pid, a.comm) <
               std::tie(b.switch_ts, b.wakeup_ts, b.cpu, b.pid, b.comm);
    };
    if (worst_.size() == top_ && !by_latency(w, worst_.back())) return;
    worst_.insert(std::upper_bound(worst_.begin(), worst_.end(), w, by_latency), std::move(w));
    if (worst_.size() > top_) worst_.pop_back();
}

void LatencyAnalysis::on_input_event(size_t input, const Event& ev) {
    const Handles& h = handles(ev.type());
    if (ev.name() == "sched_switch") {
        if (!h.next_pid) return;
        int pid = static_cast<int>(ev.i64(h.next_pid));
        auto it = pending_.find(input_key(input, pid));
        if (it == pending_.end()) return;
        uint64_t lat = ev.timestamp() >= it->second.ts ? ev.timestamp() - it->second.ts : 0;
        std::string comm = escaped(ev.str(h.next_comm), TextTarget::utf8);
        Task& task = tasks_[pid];
        task.name.update(comm, ev.timestamp());
        task.hist.add(lat);
        overall_.add(lat);
        add_worst({lat, it->second.ts, ev.timestamp(), ev.cpu(), pid, std::move(comm)});
        pending_.erase(it);
        return;
    }
    if (!h.pid) return;
    int pid = static_cast<int>(ev.i64(h.pid));
    pending_.try_emplace(input_key(input, pid), Pending{ev.timestamp(), ev.cpu()});
}

void LatencyAnalysis::merge(const LatencyAnalysis& other) {
    overall_.merge(other.overall_);
    for (const auto& [pid, t] : other.tasks_) {
        Task& mine = tasks_[pid];
        mine.name.merge(t.name);
        mine.hist.merge(t.hist);
    }
    for (const auto& w : other.worst_) add_worst(w);
}

namespace {

std::vector<Cell> stats_cells(const LogHistogram& h) {
    return {Cell{h.count()},        Cell{h.min()},          Cell{h.mean()},          Cell{h.quantile(0.50)},
            Cell{h.quantile(0.90)}, Cell{h.quantile(0.99)}, Cell{h.quantile(0.999)}, Cell{h.max()}};
}

const std::vector<std::string> kStatColumns = {"count",  "min_ns", "mean_ns", "p50_ns",
                                               "p90_ns", "p99_ns", "p999_ns", "max_ns"};

}  // namespace

std::vector<std::pair<int, const LatencyAnalysis::Task*>> LatencyAnalysis::tasks_worst_first() const {
    std::vector<std::pair<int, const Task*>> order;
    for (const auto& [pid, t] : tasks_) order.emplace_back(pid, &t);
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return std::make_tuple(a.second->hist.max(), a.second->hist.count()) >
               std::make_tuple(b.second->hist.max(), b.second->hist.count());
    });
    return order;
}

void LatencyAnalysis::end(ResultSink& sink) {
    ResultTable overall{"sched.latency.overall", kStatColumns, {stats_cells(overall_)}};
    sink.add_table(std::move(overall));

    ResultTable tasks{"sched.latency.tasks", {"pid", "comm"}, {}};
    tasks.columns.insert(tasks.columns.end(), kStatColumns.begin(), kStatColumns.end());
    for (const auto& [pid, tp] : tasks_worst_first()) {
        const Task& t = *tp;
        std::vector<Cell> row{Cell{int64_t{pid}}, Cell{t.name.comm}};
        auto s = stats_cells(t.hist);
        row.insert(row.end(), s.begin(), s.end());
        tasks.rows.push_back(std::move(row));
    }
    sink.add_table(std::move(tasks));

    ResultTable worst{
        "sched.latency.worst", {"latency_ns", "wakeup_ts", "switch_ts", "cpu", "pid", "comm"}, {}};
    for (const auto& w : worst_) {
        worst.rows.push_back({Cell{w.latency_ns}, Cell{w.wakeup_ts}, Cell{w.switch_ts}, Cell{int64_t{w.cpu}},
                              Cell{int64_t{w.pid}}, Cell{w.comm}});
    }
    sink.add_table(std::move(worst));

    // Log2 buckets of the whole distribution (from the fine buckets).
    ResultTable hist{"sched.latency.histogram", {"from_ns", "to_ns", "count"}, {}};
    std::map<unsigned, uint64_t> log2;
    const auto& b = overall_.buckets();
    for (size_t i = 0; i < b.size(); ++i) {
        if (!b[i]) continue;
        uint64_t lo = LogHistogram::lower(i);
        unsigned p = lo ? 63u - static_cast<unsigned>(__builtin_clzll(lo)) : 0;
        log2[lo ? p + 1 : 0] += b[i];
    }
    for (const auto& [k, n] : log2) {
        uint64_t from = k ? uint64_t{1} << (k - 1) : 0, to = k ? uint64_t{1} << k : 1;
        hist.rows.push_back({Cell{from}, Cell{to}, Cell{n}});
    }
    sink.add_table(std::move(hist));
}

// ---- runtime ---------------------------------------------------------------------------------

void RuntimeAnalysis::finish() {
    for (Input& in : inputs_) {
        for (auto& [cpu, r] : in.running) {
            if (r.pid < 0) continue;
            uint64_t d = in.span.last - r.since;
            tasks_[r.pid].runtime_ns += d;
            if (r.pid != 0) cpus_[cpu].busy_ns += d;
            r.since = in.span.last;
        }
    }
}

void RuntimeAnalysis::on_input_event(size_t input, const Event& ev) {
    if (input >= inputs_.size()) inputs_.resize(input + 1);
    Input& in = inputs_[input];
    in.span.see(ev.timestamp());
    span_.see(ev.timestamp());
    if (ev.system() != "sched") return;
    if (ev.name() == "sched_migrate_task") {
        in.migrate_events = true;
        if (auto pid = ev.integer("pid")) ++tasks_[static_cast<int>(*pid)].migrations;
        return;
    }
    if (ev.name() != "sched_switch") return;
    const int cpu = ev.cpu();
    const int prev = static_cast<int>(ev.integer("prev_pid").value_or(-1));
    const int next = static_cast<int>(ev.integer("next_pid").value_or(-1));
    Running& r = in.running[cpu];
    // The task that ran since the last switch on this CPU (or since the input began).
    uint64_t since = r.pid >= 0 ? r.since : in.span.first;
    uint64_t d = ev.timestamp() - since;
    Task& p = tasks_[prev];
    p.name.update(ev.str("prev_comm").value_or(""), ev.timestamp());
    p.runtime_ns += d;
    if (prev != 0) cpus_[cpu].busy_ns += d;
    ++cpus_[cpu].switches;
    ++p.switches;
    TaskStateNames states(&ev.type());
    uint64_t state = static_cast<uint64_t>(ev.integer("prev_state").value_or(0));
    if (states.is_running(state))
        ++p.preempted;
    else
        ++p.voluntary;

    Task& n = tasks_[next];
    n.name.update(ev.str("next_comm").value_or(""), ev.timestamp());
    auto [last, first_run] = in.last_cpu.try_emplace(next, cpu);
    if (!in.migrate_events && next != 0 && !first_run && last->second != cpu) ++n.migrations;
    last->second = cpu;
    r.pid = next;
    r.since = ev.timestamp();
}

void RuntimeAnalysis::merge(const RuntimeAnalysis& other) {
    span_.merge(other.span_);
    for (const auto& [pid, t] : other.tasks_) {
        Task& mine = tasks_[pid];
        mine.name.merge(t.name);
        mine.runtime_ns += t.runtime_ns;
        mine.switches += t.switches;
        mine.voluntary += t.voluntary;
        mine.preempted += t.preempted;
        mine.migrations += t.migrations;
    }
    for (const auto& [cpu, c] : other.cpus_) {
        cpus_[cpu].busy_ns += c.busy_ns;
        cpus_[cpu].switches += c.switches;
    }
}

void RuntimeAnalysis::end(ResultSink& sink) {
    finish();
    const double span = span_.last > span_.first ? static_cast<double>(span_.last - span_.first) : 1.0;
    ResultTable tasks{
        "sched.runtime.tasks",
        {"pid", "comm", "runtime_ns", "share", "switches", "voluntary", "preempted", "migrations"},
        {}};
    std::vector<std::pair<int, const Task*>> order;
    for (const auto& [pid, t] : tasks_) order.emplace_back(pid, &t);
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.second->runtime_ns > b.second->runtime_ns;
    });
    for (const auto& [pid, t] : order) {
        tasks.rows.push_back({Cell{int64_t{pid}}, Cell{t->name.comm}, Cell{t->runtime_ns},
                              Cell{static_cast<double>(t->runtime_ns) / span}, Cell{t->switches},
                              Cell{t->voluntary}, Cell{t->preempted}, Cell{t->migrations}});
    }
    sink.add_table(std::move(tasks));
    ResultTable cpus{"sched.runtime.cpus", {"cpu", "busy_ns", "busy_share", "switches"}, {}};
    for (const auto& [cpu, c] : cpus_)
        cpus.rows.push_back({Cell{int64_t{cpu}}, Cell{c.busy_ns}, Cell{static_cast<double>(c.busy_ns) / span},
                             Cell{c.switches}});
    sink.add_table(std::move(cpus));
}

// ---- timeline --------------------------------------------------------------------------------

void TimelineAnalysis::add_busy(int cpu, uint64_t from, uint64_t to) {
    auto& windows = busy_[cpu];
    while (from < to) {
        uint64_t w = from / window_;
        uint64_t upto = std::min(to, (w + 1) * window_);
        windows[w] += upto - from;
        from = upto;
    }
}

void TimelineAnalysis::on_input_event(size_t input, const Event& ev) {
    if (overflowed_) return;
    if (input >= inputs_.size()) inputs_.resize(input + 1);
    Input& in = inputs_[input];
    in.span.see(ev.timestamp());
    if ((in.span.last - in.span.first) / window_ >= kMaxWindows) {
        overflowed_ = true;
        overflow_span_ = in.span.last - in.span.first;
        inputs_.clear();
        busy_.clear();
        spans_.clear();
        return;
    }
    if (ev.name() != "sched_switch" || ev.system() != "sched") return;
    const int cpu = ev.cpu();
    const int prev = static_cast<int>(ev.integer("prev_pid").value_or(0));
    const int next = static_cast<int>(ev.integer("next_pid").value_or(0));
    auto it = in.state.find(cpu);
    // Before the first switch on a CPU, what ran is the switch's prev task since the input began.
    bool busy = it != in.state.end() ? it->second.first : prev != 0;
    uint64_t since = it != in.state.end() ? it->second.second : in.span.first;
    if (busy) add_busy(cpu, since, ev.timestamp());
    in.state[cpu] = {next != 0, ev.timestamp()};
}

void TimelineAnalysis::finish() {
    for (Input& in : inputs_) {
        if (!in.span.seen) continue;
        for (auto& [cpu, st] : in.state)
            if (st.first) add_busy(cpu, st.second, in.span.last);
        spans_.emplace_back(in.span.first, in.span.last);
    }
    inputs_.clear();
}

std::string TimelineAnalysis::overflow_message() const {
    const uint64_t need = overflow_span_ / kMaxWindows + 1;
    return "a timeline of more than " + std::to_string(kMaxWindows) + " windows of " +
           format_duration_ns(static_cast<double>(window_)) + " (an input spans at least " +
           format_duration_ns(static_cast<double>(overflow_span_)) + "): take a window of " +
           std::to_string((need + 999) / 1000) + "us or more";
}

void TimelineAnalysis::merge(const TimelineAnalysis& other) {
    spans_.insert(spans_.end(), other.spans_.begin(), other.spans_.end());
    for (const auto& [cpu, windows] : other.busy_) {
        auto& mine = busy_[cpu];
        for (const auto& [w, ns] : windows) mine[w] += ns;
    }
}

void TimelineAnalysis::end(ResultSink& sink) {
    if (overflowed_) {
        sink.add_table({"sched.timeline.error", {"error"}, {{Cell{overflow_message()}}}});
        return;
    }
    finish();
    // The time the inputs cover (overlapping spans counted once), per window.
    std::vector<std::pair<uint64_t, uint64_t>> spans = spans_;
    std::sort(spans.begin(), spans.end());
    std::map<uint64_t, uint64_t> covered;  // window number -> ns covered
    uint64_t upto = 0;                     // the end of what is counted so far
    bool any = false;
    for (auto [first, last] : spans) {
        if (any && last <= upto) continue;
        if (any && first < upto) first = upto;
        for (uint64_t w = first / window_; w <= last / window_; ++w) {
            uint64_t lo = std::max(w * window_, first), hi = std::min((w + 1) * window_, last);
            if (hi > lo || first == last) covered[w] += hi - lo;
        }
        upto = last;
        any = true;
    }
    ResultTable t{"sched.timeline", {"window_start_ns", "window_ns"}, {}};
    for (const auto& [cpu, v] : busy_) t.columns.push_back("cpu" + std::to_string(cpu) + "_busy");
    for (const auto& [w, ns] : covered) {
        uint64_t len = ns ? ns : window_;  // a trace of one instant
        std::vector<Cell> row{Cell{w * window_}, Cell{len}};
        for (const auto& [cpu, windows] : busy_) {
            auto b = windows.find(w);
            uint64_t busy = b == windows.end() ? 0 : b->second;
            row.push_back(Cell{static_cast<double>(busy) / static_cast<double>(len)});
        }
        t.rows.push_back(std::move(row));
    }
    sink.add_table(std::move(t));
}

// ---- for `ringscope run` ---------------------------------------------------------------------

std::vector<AnalysisSpec> analysis_specs() {
    std::vector<AnalysisSpec> specs;
    specs.push_back({"sched.latency",
                     "wakeup-to-run latency per task and overall, histogram, worst wakeups",
                     {{"top", ParamType::integer, "10", "how many worst wakeups to list (0-100000)"}},
                     [](const AnalysisParams& p) -> std::unique_ptr<EventHandler> {
                         if (p.integer("top") < 0 || p.integer("top") > static_cast<int64_t>(kMaxTop))
                             return nullptr;
                         return std::make_unique<LatencyAnalysis>(static_cast<size_t>(p.integer("top")));
                     }});
    specs.push_back({"sched.runtime",
                     "on-CPU time per task and CPU, context switches, migrations",
                     {},
                     [](const AnalysisParams&) { return std::make_unique<RuntimeAnalysis>(); }});
    specs.push_back({"sched.timeline",
                     "per-CPU busy fraction in time windows",
                     {{"window", ParamType::duration, "10ms",
                       "window length (1us at least; at most 1000000 windows per input)"}},
                     [](const AnalysisParams& p) -> std::unique_ptr<EventHandler> {
                         if (p.duration_ns("window") < kMinWindowNs) return nullptr;
                         return std::make_unique<TimelineAnalysis>(p.duration_ns("window"));
                     }});
    return specs;
}

}  // namespace ringscope::sched
