// The sched analyses' mergeable state as JSON, for partial results (`--partial`, `--merge`):
// everything end() reads, exact (histogram buckets, count, sum, min, max; per-task and per-CPU
// totals; the worst wakeups; busy time per absolute window).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "sched_analyses.hpp"

namespace ringscope::sched {
namespace {

using json = nlohmann::json;

// The sum is an integer that may pass 2^53: kept as decimal text, exact.
json histogram_state(const LogHistogram& h) {
    char sum[64];
    std::snprintf(sum, sizeof sum, "%.0Lf", h.sum());
    json buckets = json::array();  // [index, count] of the buckets that are not empty
    for (size_t i = 0; i < h.buckets().size(); ++i)
        if (h.buckets()[i]) buckets.push_back({i, h.buckets()[i]});
    return {{"count", h.count()},
            {"sum", sum},
            {"min", h.min()},
            {"max", h.max()},
            {"buckets", std::move(buckets)}};
}

LogHistogram load_histogram(const json& j) {
    std::vector<uint64_t> buckets;
    uint64_t count = j.at("count").get<uint64_t>(), in_buckets = 0;
    for (const auto& b : j.at("buckets")) {
        auto i = b.at(0).get<uint64_t>();
        // Past the bucket of the largest uint64_t there are no buckets.
        if (i > LogHistogram::index_of(UINT64_MAX))
            throw std::invalid_argument("histogram bucket index out of range");
        if (i >= buckets.size()) buckets.resize(i + 1, 0);
        buckets[i] += b.at(1).get<uint64_t>();
        in_buckets += b.at(1).get<uint64_t>();
    }
    if (in_buckets != count) throw std::invalid_argument("histogram buckets do not add up to its count");
    const std::string sum = j.at("sum").get<std::string>();
    char* end = nullptr;
    long double s = std::strtold(sum.c_str(), &end);
    if (sum.empty() || *end) throw std::invalid_argument("histogram sum '" + sum + "' is not a number");
    return LogHistogram::from_state(std::move(buckets), count, s, j.at("min").get<uint64_t>(),
                                    j.at("max").get<uint64_t>());
}

json span_state(const TimeSpan& s) {
    return {{"seen", s.seen}, {"first_ts", s.first}, {"last_ts", s.last}};
}

TimeSpan load_span(const json& j) {
    TimeSpan s;
    if (j.at("seen").get<bool>()) {
        s.see(j.at("first_ts").get<uint64_t>());
        s.see(j.at("last_ts").get<uint64_t>());
    }
    return s;
}

json name_state(const TaskName& n) {
    return {{"comm", n.comm}, {"comm_ts", n.ts}};
}

TaskName load_name(const json& j) {
    TaskName n;
    n.update(j.at("comm").get<std::string>(), j.at("comm_ts").get<uint64_t>());
    return n;
}

// Runs `load` and turns a missing key or a wrong type into one error line.
template <class F>
Status guarded(F&& load) {
    try {
        load();
        return Status::success();
    } catch (const std::exception& e) {
        return Error(Errc::corrupt, std::string("bad analysis state: ") + e.what());
    }
}

}  // namespace

json LatencyAnalysis::save_state() const {
    json tasks = json::array(), worst = json::array();
    for (const auto& [pid, t] : tasks_) {
        json j = name_state(t.name);
        j["pid"] = pid;
        j["hist"] = histogram_state(t.hist);
        tasks.push_back(std::move(j));
    }
    for (const auto& w : worst_)
        worst.push_back({{"latency_ns", w.latency_ns},
                         {"wakeup_ts", w.wakeup_ts},
                         {"switch_ts", w.switch_ts},
                         {"cpu", w.cpu},
                         {"pid", w.pid},
                         {"comm", w.comm}});
    return {{"overall", histogram_state(overall_)}, {"tasks", std::move(tasks)}, {"worst", std::move(worst)}};
}

Status LatencyAnalysis::load_state(const json& state) {
    return guarded([&] {
        overall_ = load_histogram(state.at("overall"));
        tasks_.clear();
        for (const auto& j : state.at("tasks")) {
            Task& t = tasks_[j.at("pid").get<int>()];
            t.name = load_name(j);
            t.hist = load_histogram(j.at("hist"));
        }
        worst_.clear();
        for (const auto& w : state.at("worst"))
            add_worst({w.at("latency_ns").get<uint64_t>(), w.at("wakeup_ts").get<uint64_t>(),
                       w.at("switch_ts").get<uint64_t>(), w.at("cpu").get<int>(), w.at("pid").get<int>(),
                       w.at("comm").get<std::string>()});
    });
}

json RuntimeAnalysis::save_state() const {
    json tasks = json::array(), cpus = json::array();
    for (const auto& [pid, t] : tasks_) {
        json j = name_state(t.name);
        j.update({{"pid", pid},
                  {"runtime_ns", t.runtime_ns},
                  {"switches", t.switches},
                  {"voluntary", t.voluntary},
                  {"preempted", t.preempted},
                  {"migrations", t.migrations}});
        tasks.push_back(std::move(j));
    }
    for (const auto& [cpu, c] : cpus_)
        cpus.push_back({{"cpu", cpu}, {"busy_ns", c.busy_ns}, {"switches", c.switches}});
    return {{"span", span_state(span_)}, {"tasks", std::move(tasks)}, {"cpus", std::move(cpus)}};
}

Status RuntimeAnalysis::load_state(const json& state) {
    return guarded([&] {
        span_ = load_span(state.at("span"));
        inputs_.clear();
        tasks_.clear();
        for (const auto& j : state.at("tasks")) {
            Task& t = tasks_[j.at("pid").get<int>()];
            t.name = load_name(j);
            t.runtime_ns = j.at("runtime_ns").get<uint64_t>();
            t.switches = j.at("switches").get<uint64_t>();
            t.voluntary = j.at("voluntary").get<uint64_t>();
            t.preempted = j.at("preempted").get<uint64_t>();
            t.migrations = j.at("migrations").get<uint64_t>();
        }
        cpus_.clear();
        for (const auto& j : state.at("cpus")) {
            Cpu& c = cpus_[j.at("cpu").get<int>()];
            c.busy_ns = j.at("busy_ns").get<uint64_t>();
            c.switches = j.at("switches").get<uint64_t>();
        }
    });
}

json TimelineAnalysis::save_state() const {
    json busy = json::array();
    for (const auto& [cpu, windows] : busy_)
        for (const auto& [w, ns] : windows) busy.push_back({cpu, w, ns});
    return {{"window_ns", window_}, {"spans", spans_}, {"busy", std::move(busy)}};
}

Status TimelineAnalysis::load_state(const json& state) {
    return guarded([&] {
        if (state.at("window_ns").get<uint64_t>() != window_)
            throw std::invalid_argument("window_ns differs from the window of this run");
        inputs_.clear();
        spans_.clear();
        for (const auto& sp : state.at("spans")) {
            auto [first, last] = sp.get<std::pair<uint64_t, uint64_t>>();
            if (first > last) throw std::invalid_argument("a time span ends before it starts");
            spans_.emplace_back(first, last);
        }
        busy_.clear();
        for (const auto& b : state.at("busy")) {
            if (!b.is_array() || b.size() != 3)
                throw std::invalid_argument("a busy entry is not [cpu, window, ns]");
            busy_[b[0].get<int>()][b[1].get<uint64_t>()] += b[2].get<uint64_t>();
        }
    });
}

}  // namespace ringscope::sched
