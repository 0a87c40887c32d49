// `ringscope sched latency|runtime|timeline FILE...`: the scheduler analyses from the command line.
#include "sched_command.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include <ringscope/trace.hpp>

#include "sched_analyses.hpp"

namespace ringscope::sched {
namespace {

constexpr const char* kUsage =
    "usage: ringscope sched latency [--top N] [--format text|json|csv] FILE...\n"
    "       ringscope sched runtime [--format text|json|csv] FILE...\n"
    "       ringscope sched timeline [--window DURATION] [--format text|json|csv] FILE...\n"
    "\n"
    "latency: wakeup-to-run latency (sched_wakeup/sched_wakeup_new to the sched_switch that runs the\n"
    "         task) per task and overall, percentiles within 0.79%, a log2 histogram, the worst N.\n"
    "runtime: on-CPU time per task and CPU, context switches (voluntary/preempted), migrations.\n"
    "timeline: per-CPU busy fraction per window (default 10ms; units ns, us, ms, s).\n";

// "10ms", "250us", "1s", "5000" (ns).
bool parse_duration(const std::string& s, uint64_t& ns) {
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (errno || end == s.c_str()) return false;
    std::string unit(end);
    uint64_t mul = unit.empty() || unit == "ns" ? 1 : unit == "us" ? 1000 : unit == "ms" ? 1000000 : unit == "s" ? 1000000000 : 0;
    if (!mul || v == 0) return false;
    ns = v * mul;
    return true;
}

nlohmann::ordered_json stats_json(const LogHistogram& h) {
    return {{"count", h.count()},          {"min_ns", h.min()},
            {"mean_ns", h.mean()},         {"p50_ns", h.quantile(0.50)},
            {"p90_ns", h.quantile(0.90)},  {"p99_ns", h.quantile(0.99)},
            {"p999_ns", h.quantile(0.999)}, {"max_ns", h.max()}};
}

void latency_json(std::FILE* out, const LatencyAnalysis& a, const TableCollector& tables) {
    nlohmann::ordered_json doc;
    doc["overall"] = stats_json(a.overall());
    doc["tasks"] = nlohmann::ordered_json::array();
    for (const auto& [pid, t] : a.tasks()) {
        nlohmann::ordered_json j = {{"pid", pid}, {"comm", t.comm}};
        j.update(stats_json(t.hist));
        doc["tasks"].push_back(std::move(j));
    }
    doc["worst"] = nlohmann::ordered_json::array();
    for (const auto& w : a.worst()) {
        doc["worst"].push_back({{"latency_ns", w.latency_ns}, {"wakeup_ts", w.wakeup_ts}, {"switch_ts", w.switch_ts},
                                {"cpu", w.cpu}, {"pid", w.pid}, {"comm", w.comm}});
    }
    doc["histogram"] = nlohmann::ordered_json::array();
    for (const auto& t : tables.tables) {
        if (t.name != "sched.latency.histogram") continue;
        for (const auto& r : t.rows)
            doc["histogram"].push_back(
                {{"from_ns", std::get<uint64_t>(r[0])}, {"to_ns", std::get<uint64_t>(r[1])}, {"count", std::get<uint64_t>(r[2])}});
    }
    doc["percentile_relative_error"] = LogHistogram::kRelativeError;
    std::fprintf(out, "%s\n", doc.dump(2).c_str());
}

}  // namespace

int run_sched_command(const std::vector<std::string>& args, CommandEnv& env) {
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
        std::fputs(kUsage, args.empty() ? env.err() : env.out());
        return args.empty() ? 2 : 0;
    }
    const std::string& what = args[0];
    if (what != "latency" && what != "runtime" && what != "timeline") {
        std::fprintf(env.err(), "ringscope sched: unknown analysis '%s'\n%s", what.c_str(), kUsage);
        return 2;
    }
    size_t top = 10;
    uint64_t window = 10'000'000;
    TableFormat format = TableFormat::text;
    std::vector<std::string> files;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const char* opt) -> const std::string* {
            if (i + 1 >= args.size()) {
                std::fprintf(env.err(), "ringscope sched: option '%s' needs a value\n", opt);
                return nullptr;
            }
            return &args[++i];
        };
        if (a == "--top" && what == "latency") {
            const std::string* v = value("--top");
            if (!v) return 2;
            char* end;
            top = std::strtoul(v->c_str(), &end, 10);
            if (*end || v->empty()) {
                std::fprintf(env.err(), "ringscope sched: --top needs a number, not '%s'\n", v->c_str());
                return 2;
            }
        } else if (a == "--window" && what == "timeline") {
            const std::string* v = value("--window");
            if (!v) return 2;
            if (!parse_duration(*v, window)) {
                std::fprintf(env.err(), "ringscope sched: bad --window '%s' (e.g. 10ms, 500us, 1s)\n", v->c_str());
                return 2;
            }
        } else if (a == "--format") {
            const std::string* v = value("--format");
            if (!v) return 2;
            if (!parse_table_format(*v, format)) {
                std::fprintf(env.err(), "ringscope sched: --format must be text, json or csv, not '%s'\n", v->c_str());
                return 2;
            }
        } else if (a == "-h" || a == "--help") {
            std::fputs(kUsage, env.out());
            return 0;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(env.err(), "ringscope sched %s: unknown option '%s'\n", what.c_str(), a.c_str());
            return 2;
        } else {
            files.push_back(a);
        }
    }
    if (files.empty()) {
        std::fprintf(env.err(), "ringscope sched %s: no trace file given\n", what.c_str());
        return 2;
    }

    std::unique_ptr<EventHandler> handler;
    LatencyAnalysis* latency = nullptr;
    if (what == "latency") {
        auto l = std::make_unique<LatencyAnalysis>(top);
        latency = l.get();
        handler = std::move(l);
    } else if (what == "runtime") {
        handler = std::make_unique<RuntimeAnalysis>();
    } else {
        handler = std::make_unique<TimelineAnalysis>(window);
    }
    const std::vector<EventMatch> subs = handler->subscriptions();

    // Several files are read merged in time order, as one run.
    std::vector<Trace> traces;
    TraceOpenOptions opts;
    opts.load_plugins = false;
    opts.resolvers = &env.resolvers();
    for (const auto& f : files) {
        auto t = Trace::open(f, opts);
        if (!t) {
            std::fprintf(env.err(), "ringscope sched: %s\n", t.error().to_string().c_str());
            return 1;
        }
        traces.push_back(std::move(*t));
    }
    std::vector<Trace*> ptrs;
    for (auto& t : traces) ptrs.push_back(&t);
    handler->begin(traces.front().context());
    Trace::iterate_multi(ptrs, [&](Trace&, const Event& ev, int) {
        for (const auto& m : subs) {
            if (m.matches(ev.system(), ev.name())) {
                handler->on_event(ev);
                break;
            }
        }
        return 0;
    });
    for (auto& t : traces) {
        if (!t.status()) {
            std::fprintf(env.err(), "ringscope sched: %s\n", t.status().error().to_string().c_str());
            return 1;
        }
    }
    TableCollector tables;
    handler->end(tables);
    if (latency && format == TableFormat::json)
        latency_json(env.out(), *latency, tables);
    else
        write_tables(env.out(), tables.tables, format);
    return 0;
}

}  // namespace ringscope::sched
