#include "sched_analyses.hpp"

#include <algorithm>

#include "task_state.hpp"

namespace ringscope::sched {

// ---- latency ---------------------------------------------------------------------------------

const LatencyAnalysis::Handles& LatencyAnalysis::handles(const EventType& t) {
    auto it = handles_.find(&t);
    if (it == handles_.end())
        it = handles_.emplace(&t, Handles{t.handle("pid"), t.handle("next_pid"), t.handle("next_comm")}).first;
    return it->second;
}

void LatencyAnalysis::add_worst(Wakeup w) {
    if (top_ == 0) return;
    auto by_latency = [](const Wakeup& a, const Wakeup& b) {
        return a.latency_ns != b.latency_ns ? a.latency_ns > b.latency_ns : a.switch_ts < b.switch_ts;
    };
    if (worst_.size() == top_ && !by_latency(w, worst_.back())) return;
    worst_.insert(std::upper_bound(worst_.begin(), worst_.end(), w, by_latency), std::move(w));
    if (worst_.size() > top_) worst_.pop_back();
}

void LatencyAnalysis::on_event(const Event& ev) {
    const Handles& h = handles(ev.type());
    if (ev.name() == "sched_switch") {
        if (!h.next_pid) return;
        int pid = static_cast<int>(ev.i64(h.next_pid));
        auto it = pending_.find(pid);
        if (it == pending_.end()) return;
        uint64_t lat = ev.timestamp() >= it->second.ts ? ev.timestamp() - it->second.ts : 0;
        std::string comm(ev.str(h.next_comm));
        Task& task = tasks_[pid];
        task.comm = comm;
        task.hist.add(lat);
        overall_.add(lat);
        add_worst({lat, it->second.ts, ev.timestamp(), ev.cpu(), pid, std::move(comm)});
        pending_.erase(it);
        return;
    }
    if (!h.pid) return;
    int pid = static_cast<int>(ev.i64(h.pid));
    pending_.try_emplace(pid, Pending{ev.timestamp(), ev.cpu()});
}

void LatencyAnalysis::merge(const LatencyAnalysis& other) {
    overall_.merge(other.overall_);
    for (const auto& [pid, t] : other.tasks_) {
        Task& mine = tasks_[pid];
        if (mine.comm.empty()) mine.comm = t.comm;
        mine.hist.merge(t.hist);
    }
    for (const auto& w : other.worst_) add_worst(w);
}

namespace {

std::vector<Cell> stats_cells(const LogHistogram& h) {
    return {Cell{h.count()},          Cell{h.min()},            Cell{h.mean()},           Cell{h.quantile(0.50)},
            Cell{h.quantile(0.90)},   Cell{h.quantile(0.99)},   Cell{h.quantile(0.999)},  Cell{h.max()}};
}

const std::vector<std::string> kStatColumns = {"count", "min_ns", "mean_ns", "p50_ns", "p90_ns",
                                               "p99_ns", "p999_ns", "max_ns"};

}  // namespace

void LatencyAnalysis::end(ResultSink& sink) {
    ResultTable overall{"sched.latency.overall", kStatColumns, {stats_cells(overall_)}};
    sink.add_table(std::move(overall));

    ResultTable tasks{"sched.latency.tasks", {"pid", "comm"}, {}};
    tasks.columns.insert(tasks.columns.end(), kStatColumns.begin(), kStatColumns.end());
    for (const auto& [pid, t] : tasks_) {
        std::vector<Cell> row{Cell{int64_t{pid}}, Cell{t.comm}};
        auto s = stats_cells(t.hist);
        row.insert(row.end(), s.begin(), s.end());
        tasks.rows.push_back(std::move(row));
    }
    sink.add_table(std::move(tasks));

    ResultTable worst{"sched.latency.worst", {"latency_ns", "wakeup_ts", "switch_ts", "cpu", "pid", "comm"}, {}};
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

void RuntimeAnalysis::close_all() {
    for (auto& [cpu, r] : running_) {
        if (r.pid < 0) continue;
        uint64_t d = last_ts_ - r.since;
        tasks_[r.pid].runtime_ns += d;
        if (r.pid != 0) cpus_[cpu].busy_ns += d;
        r.since = last_ts_;
    }
}

void RuntimeAnalysis::on_event(const Event& ev) {
    if (!seen_) {
        seen_ = true;
        first_ts_ = ev.timestamp();
    }
    last_ts_ = ev.timestamp();
    if (ev.system() != "sched") return;
    if (ev.name() == "sched_migrate_task") {
        migrate_events_ = true;
        if (auto pid = ev.integer("pid")) ++tasks_[static_cast<int>(*pid)].migrations;
        return;
    }
    if (ev.name() != "sched_switch") return;
    const int cpu = ev.cpu();
    const int prev = static_cast<int>(ev.integer("prev_pid").value_or(-1));
    const int next = static_cast<int>(ev.integer("next_pid").value_or(-1));
    Running& r = running_[cpu];
    // The task that ran since the last switch on this CPU (or since the trace began).
    uint64_t since = r.pid >= 0 ? r.since : first_ts_;
    uint64_t d = ev.timestamp() - since;
    Task& p = tasks_[prev];
    if (p.comm.empty()) p.comm = std::string(ev.str("prev_comm").value_or(""));
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
    n.comm = std::string(ev.str("next_comm").value_or(""));
    if (!migrate_events_ && next != 0 && n.last_cpu >= 0 && n.last_cpu != cpu) ++n.migrations;
    n.last_cpu = cpu;
    r.pid = next;
    r.since = ev.timestamp();
}

void RuntimeAnalysis::end(ResultSink& sink) {
    close_all();
    const double span = last_ts_ > first_ts_ ? static_cast<double>(last_ts_ - first_ts_) : 1.0;
    ResultTable tasks{"sched.runtime.tasks",
                      {"pid", "comm", "runtime_ns", "share", "switches", "voluntary", "preempted", "migrations"},
                      {}};
    std::vector<std::pair<int, const Task*>> order;
    for (const auto& [pid, t] : tasks_) order.emplace_back(pid, &t);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.second->runtime_ns > b.second->runtime_ns; });
    for (const auto& [pid, t] : order) {
        tasks.rows.push_back({Cell{int64_t{pid}}, Cell{t->comm}, Cell{t->runtime_ns},
                              Cell{static_cast<double>(t->runtime_ns) / span}, Cell{t->switches}, Cell{t->voluntary},
                              Cell{t->preempted}, Cell{t->migrations}});
    }
    sink.add_table(std::move(tasks));
    ResultTable cpus{"sched.runtime.cpus", {"cpu", "busy_ns", "busy_share", "switches"}, {}};
    for (const auto& [cpu, c] : cpus_)
        cpus.rows.push_back(
            {Cell{int64_t{cpu}}, Cell{c.busy_ns}, Cell{static_cast<double>(c.busy_ns) / span}, Cell{c.switches}});
    sink.add_table(std::move(cpus));
}

// ---- timeline --------------------------------------------------------------------------------

void TimelineAnalysis::add_busy(int cpu, uint64_t from, uint64_t to) {
    auto& v = busy_[cpu];
    while (from < to) {
        uint64_t w = (from - first_ts_) / window_;
        uint64_t wend = first_ts_ + (w + 1) * window_;
        uint64_t upto = std::min(to, wend);
        if (v.size() <= w) v.resize(w + 1, 0);
        v[w] += upto - from;
        from = upto;
    }
}

void TimelineAnalysis::on_event(const Event& ev) {
    if (!seen_) {
        seen_ = true;
        first_ts_ = ev.timestamp();
    }
    last_ts_ = ev.timestamp();
    if (ev.name() != "sched_switch" || ev.system() != "sched") return;
    const int cpu = ev.cpu();
    const int prev = static_cast<int>(ev.integer("prev_pid").value_or(0));
    const int next = static_cast<int>(ev.integer("next_pid").value_or(0));
    auto it = state_.find(cpu);
    // Before the first switch on a CPU, what ran is the switch's prev task since the trace began.
    bool busy = it != state_.end() ? it->second.first : prev != 0;
    uint64_t since = it != state_.end() ? it->second.second : first_ts_;
    if (busy) add_busy(cpu, since, ev.timestamp());
    state_[cpu] = {next != 0, ev.timestamp()};
}

void TimelineAnalysis::end(ResultSink& sink) {
    for (auto& [cpu, st] : state_)
        if (st.first) add_busy(cpu, st.second, last_ts_);
    const uint64_t windows = seen_ ? (last_ts_ - first_ts_) / window_ + 1 : 0;
    ResultTable t{"sched.timeline", {"window_start_ns", "window_ns"}, {}};
    for (const auto& [cpu, v] : busy_) t.columns.push_back("cpu" + std::to_string(cpu) + "_busy");
    for (uint64_t w = 0; w < windows; ++w) {
        uint64_t start = first_ts_ + w * window_;
        uint64_t len = std::min(window_, last_ts_ - start);
        if (len == 0) len = window_;
        std::vector<Cell> row{Cell{start}, Cell{len}};
        for (const auto& [cpu, v] : busy_) {
            uint64_t b = w < v.size() ? v[w] : 0;
            row.push_back(Cell{static_cast<double>(b) / static_cast<double>(len)});
        }
        t.rows.push_back(std::move(row));
    }
    sink.add_table(std::move(t));
}

}  // namespace ringscope::sched
