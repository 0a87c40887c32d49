// `ringscope sched latency|runtime|timeline FILE...`: the scheduler analyses from the command line.
#include "sched_command.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>
#include <ringscope/output_check.hpp>

#include <ringscope/partial_result.hpp>
#include <ringscope/result.hpp>
#include <ringscope/selection.hpp>
#include <ringscope/trace.hpp>

#include "sched_analyses.hpp"

namespace ringscope::sched {
namespace {

constexpr const char* kUsage =
    "usage: ringscope sched latency [--top N] [--sort COLUMN] [SELECTION] [--format text|json|csv]\n"
    "                               [--partial OUT.json] FILE...\n"
    "       ringscope sched runtime [--sort COLUMN] [SELECTION] [--format text|json|csv] [--partial "
    "OUT.json] "
    "FILE...\n"
    "       ringscope sched timeline [--window DURATION] [SELECTION] [--format text|json|csv] [--partial "
    "OUT.json] "
    "FILE...\n"
    "       ringscope sched ANALYSIS --merge [--format F] [--partial OUT.json] PARTIAL.json...\n"
    "\n"
    "latency: wakeup-to-run latency (sched_wakeup/sched_wakeup_new to the sched_switch that runs the\n"
    "         task) per task and overall, percentiles within 0.79%, a log2 histogram, the worst N.\n"
    "runtime: on-CPU time per task and CPU, context switches (voluntary/preempted), migrations.\n"
    "timeline: per-CPU busy fraction per window (default 10ms; units ns, us, ms, s), windows aligned\n"
    "          on multiples of the window.\n"
    "--top: 0-100000; --window: 1us at least, at most 1000000 windows per file.\n"
    "--sort COLUMN: the per-task table, largest first (default: max_ns for latency, runtime_ns for "
    "runtime).\n"
    "--partial: write the mergeable state instead of printing; --merge: print (or write) what one run\n"
    "over all the partials' inputs gives. Several files are shards: tasks add up by pid, CPUs by number.\n"
    "Text tables give durations with units and times as report prints them; JSON and CSV integers in ns.\n";

// "10ms", "250us", "1s", "5000" (ns).
bool parse_duration(const std::string& s, uint64_t& ns) {
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (errno || end == s.c_str()) return false;
    std::string unit(end);
    uint64_t mul = unit.empty() || unit == "ns" ? 1
                   : unit == "us"               ? 1000
                   : unit == "ms"               ? 1000000
                   : unit == "s"                ? 1000000000
                                                : 0;
    if (!mul || v == 0) return false;
    ns = v * mul;
    return true;
}

nlohmann::ordered_json stats_json(const LogHistogram& h) {
    return {{"count", h.count()},           {"min_ns", h.min()},          {"mean_ns", h.mean()},
            {"p50_ns", h.quantile(0.50)},   {"p90_ns", h.quantile(0.90)}, {"p99_ns", h.quantile(0.99)},
            {"p999_ns", h.quantile(0.999)}, {"max_ns", h.max()}};
}

void latency_json(std::FILE* out, const LatencyAnalysis& a, const TableCollector& tables) {
    nlohmann::ordered_json doc;
    doc["overall"] = stats_json(a.overall());
    doc["tasks"] = nlohmann::ordered_json::array();
    for (const auto& [pid, t] : a.tasks_worst_first()) {
        nlohmann::ordered_json j = {{"pid", pid}, {"comm", t->name.comm}};
        j.update(stats_json(t->hist));
        doc["tasks"].push_back(std::move(j));
    }
    doc["worst"] = nlohmann::ordered_json::array();
    for (const auto& w : a.worst()) {
        doc["worst"].push_back({{"latency_ns", w.latency_ns},
                                {"wakeup_ts", w.wakeup_ts},
                                {"switch_ts", w.switch_ts},
                                {"cpu", w.cpu},
                                {"pid", w.pid},
                                {"comm", w.comm}});
    }
    doc["histogram"] = nlohmann::ordered_json::array();
    for (const auto& t : tables.tables) {
        if (t.name != "sched.latency.histogram") continue;
        for (const auto& r : t.rows)
            doc["histogram"].push_back({{"from_ns", std::get<uint64_t>(r[0])},
                                        {"to_ns", std::get<uint64_t>(r[1])},
                                        {"count", std::get<uint64_t>(r[2])}});
    }
    doc["percentile_relative_error"] = LogHistogram::kRelativeError;
    std::fprintf(out, "%s\n", doc.dump(2).c_str());
}

struct Options {
    std::string what;  // latency, runtime, timeline
    size_t top = 10;
    uint64_t window = 10'000'000;
    bool top_set = false, window_set = false;
    TableFormat format = TableFormat::text;
    std::string sort;  // --sort COLUMN of the per-task table
    EventSelection sel;
    std::string partial;  // --partial OUT.json
    bool merge = false;   // the files are partial results
    std::vector<std::string> files;
};

std::map<std::string, std::string> params_of(const Options& o) {
    if (o.what == "latency") return {{"top", std::to_string(o.top)}};
    if (o.what == "timeline") return {{"window", std::to_string(o.window)}};
    return {};
}

// The options a partial was made with, from its canonical params (2 and a message when they do not read).
int options_from_params(const std::string& path, const std::map<std::string, std::string>& params, Options& o,
                        CommandEnv& env) {
    std::map<std::string, std::string> want = params_of(o);
    bool ok = params.size() == want.size();
    for (const auto& [k, v] : params) {
        char* end = nullptr;
        unsigned long long n = std::strtoull(v.c_str(), &end, 10);
        ok = ok && want.count(k) && !v.empty() && !*end;
        if (!ok) break;
        if (k == "top") o.top = n;
        if (k == "window") o.window = n ? n : 1;
    }
    if (ok) return 0;
    std::fprintf(env.err(), "ringscope sched: %s: parameters do not fit sched %s\n", path.c_str(),
                 o.what.c_str());
    return 2;
}

template <class Analysis>
int print(std::FILE* out, Analysis& analysis, const Options& o, CommandEnv& env) {
    TableCollector tables;
    analysis.end(tables);
    if constexpr (std::is_same_v<Analysis, TimelineAnalysis>) {
        if (analysis.overflowed()) {
            std::fprintf(env.err(), "ringscope sched timeline: %s\n", analysis.overflow_message().c_str());
            return 1;
        }
    }
    if (!o.sort.empty()) {
        for (auto& t : tables.tables)
            if (t.name.ends_with(".tasks") && !sort_rows_desc(t, o.sort)) {
                std::fprintf(env.err(), "ringscope sched %s: --sort: no column '%s' in %s\n", o.what.c_str(),
                             o.sort.c_str(), t.name.c_str());
                return 2;
            }
    }
    if constexpr (std::is_same_v<Analysis, LatencyAnalysis>) {
        if (o.format == TableFormat::json) {
            latency_json(out, analysis, tables);
            return 0;
        }
    }
    write_tables(out, tables.tables, o.format);
    return 0;
}

// What each analysis reads, for the message when a run found none of it.
const char* events_read(const std::string& what) {
    return what == "timeline"  ? "sched_switch"
           : what == "runtime" ? "sched_switch"
                               : "sched_wakeup/sched_switch";
}

template <class Analysis>
int write_partial_of(const Analysis& analysis, const Options& o, std::vector<std::string> inputs,
                     CommandEnv& env) {
    PartialResult p{std::string(analysis.name()),
                    {"sched", o.what},
                    params_of(o),
                    std::move(inputs),
                    analysis.save_state().dump()};
    if (Status s = write_partial(o.partial, p); !s) {
        std::fprintf(env.err(), "ringscope sched: %s\n", s.error().to_string().c_str());
        return 1;
    }
    return 0;
}

// One run over o.files, or the merge of the partials o.files.
template <class Analysis, class Make>
int run_analysis(Options& o, Make make, CommandEnv& env) {
    std::vector<std::string> inputs;
    std::unique_ptr<Analysis> analysis;
    if (o.merge) {
        auto parts = read_partials(o.files);
        if (!parts) {
            std::fprintf(env.err(), "ringscope sched: %s\n", parts.error().to_string().c_str());
            return parts.error().code() == Errc::io ? 1 : 2;
        }
        // read_partials checked that all name the analysis and params of the first.
        const PartialResult& first = parts->front();
        const std::string name = "sched." + o.what;
        if (first.analysis != name || first.command != std::vector<std::string>{"sched", o.what}) {
            std::fprintf(env.err(), "ringscope sched: %s: a partial result of '%s', not of '%s'\n",
                         o.files.front().c_str(), first.analysis.c_str(), name.c_str());
            return 2;
        }
        if (int rc = options_from_params(o.files.front(), first.params, o, env)) return rc;
        analysis = make(o);
        for (size_t i = 0; i < parts->size(); ++i) {
            const PartialResult& p = (*parts)[i];
            std::unique_ptr<Analysis> part = make(o);
            if (Status s = part->load_state(nlohmann::json::parse(p.state_json)); !s) {
                std::fprintf(env.err(), "ringscope sched: %s\n",
                             Error(s.error()).in_file(o.files[i]).to_string().c_str());
                return 2;
            }
            analysis->merge(*part);
            inputs.insert(inputs.end(), p.inputs.begin(), p.inputs.end());
        }
    } else {
        analysis = make(o);
        // Several files are read merged in time order, as one run; each is its own input.
        TraceOpenOptions opts;
        opts.load_plugins = false;
        opts.resolvers = &env.resolvers();
        auto traces = Trace::open_selected(o.files, opts, o.sel);
        if (!traces) {
            std::fprintf(env.err(), "ringscope sched: %s\n", traces.error().to_string().c_str());
            return traces.error().code() == Errc::parse ? 2 : 1;
        }
        std::vector<Trace*> ptrs;
        for (auto& t : *traces) ptrs.push_back(&t);
        if (o.sel.lists_times()) return print_cpu_event_times(ptrs, o.sel, env.out(), env.err());
        const std::vector<EventMatch> subs = analysis->subscriptions();
        analysis->begin(traces->front().context());
        uint64_t fed = 0;
        Trace::iterate_multi(ptrs, [&](Trace& t, const Event& ev, int) {
            for (const auto& m : subs) {
                if (m.matches(ev.system(), ev.name())) {
                    analysis->on_input_event(static_cast<size_t>(&t - traces->data()), ev);
                    fed += ev.system() == "sched" && ev.name() == "sched_switch";
                    break;
                }
            }
            return 0;
        });
        for (auto& t : *traces) {
            if (!t.status()) {
                std::fprintf(env.err(), "ringscope sched: %s\n", t.status().error().to_string().c_str());
                return 1;
            }
        }
        if (!fed)
            std::fprintf(env.err(), "ringscope sched %s: no %s events%s in %s\n", o.what.c_str(),
                         events_read(o.what), o.sel.selects() ? " selected" : "",
                         o.files.size() == 1 ? o.files.front().c_str() : "the files");
        inputs = o.files;
    }
    if (!o.partial.empty()) {
        if constexpr (!std::is_same_v<Analysis, LatencyAnalysis>) analysis->finish();
        return write_partial_of(*analysis, o, std::move(inputs), env);
    }
    return print(env.out(), *analysis, o, env);
}

}  // namespace

namespace {

// --top N (latency): false after the error line.
bool parse_top(const std::string& v, Options& o, CommandEnv& env) {
    char* end;
    o.top = std::strtoul(v.c_str(), &end, 10);
    o.top_set = true;
    if (*end || v.empty() || v[0] == '-' || o.top > kMaxTop) {
        std::fprintf(env.err(), "ringscope sched: --top takes a count from 0 to %zu, not '%s'\n", kMaxTop,
                     v.c_str());
        return false;
    }
    return true;
}

// --window DURATION (timeline): false after the error line.
bool parse_window(const std::string& v, Options& o, CommandEnv& env) {
    o.window_set = true;
    if (!parse_duration(v, o.window)) {
        std::fprintf(env.err(), "ringscope sched: bad --window '%s' (e.g. 10ms, 500us, 1s)\n", v.c_str());
        return false;
    }
    if (o.window < kMinWindowNs) {
        std::fprintf(env.err(),
                     "ringscope sched: --window %s is too small: 1us at least (a timeline has at most "
                     "%llu windows per file)\n",
                     v.c_str(), static_cast<unsigned long long>(kMaxWindows));
        return false;
    }
    return true;
}

// The options after the analysis' name into `o`. Returns -1 to go on, or the exit code.
int parse_args(const std::vector<std::string>& args, CommandEnv& env, Options& o) {
    const std::string& what = o.what;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const char* opt) -> const std::string* {
            if (i + 1 >= args.size()) {
                std::fprintf(env.err(), "ringscope sched: option '%s' needs a value\n", opt);
                return nullptr;
            }
            return &args[++i];
        };
        std::string sel_error;
        switch (parse_selection_option(args, i, o.sel, sel_error)) {
            case SelectionParse::ok:
                continue;
            case SelectionParse::error:
                std::fprintf(env.err(), "ringscope sched %s: %s\n", what.c_str(), sel_error.c_str());
                return 2;
            case SelectionParse::not_mine:
                break;
        }
        if (a == "--top" && what == "latency") {
            const std::string* v = value("--top");
            if (!v || !parse_top(*v, o, env)) return 2;
        } else if (a == "--window" && what == "timeline") {
            const std::string* v = value("--window");
            if (!v || !parse_window(*v, o, env)) return 2;
        } else if (a == "--sort" && what != "timeline") {
            const std::string* v = value("--sort");
            if (!v) return 2;
            o.sort = *v;
        } else if (a == "--format") {
            const std::string* v = value("--format");
            if (!v) return 2;
            if (!parse_table_format(*v, o.format)) {
                std::fprintf(env.err(), "ringscope sched: --format must be text, json or csv, not '%s'\n",
                             v->c_str());
                return 2;
            }
        } else if (a == "--partial") {
            const std::string* v = value("--partial");
            if (!v) return 2;
            o.partial = *v;
        } else if (a == "--merge") {
            o.merge = true;
        } else if (a == "-h" || a == "--help") {
            std::fputs(kUsage, env.out());
            return 0;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(env.err(), "ringscope sched %s: unknown option '%s'\n", what.c_str(), a.c_str());
            return 2;
        } else {
            o.files.push_back(a);
        }
    }
    return -1;
}

// What the options ask for together; 2 after the error line, else -1.
int check_options(const Options& o, CommandEnv& env) {
    const char* what = o.what.c_str();
    if (o.files.empty()) {
        std::fprintf(env.err(), "ringscope sched %s: no %s given\n", what,
                     o.merge ? "partial result" : "trace file");
        return 2;
    }
    if (o.merge && o.sel.selects()) {
        std::fprintf(env.err(),
                     "ringscope sched %s: --merge reads partial results: select events when making them\n",
                     what);
        return 2;
    }
    if (o.merge && (o.top_set || o.window_set)) {
        std::fprintf(env.err(), "ringscope sched %s: --merge takes the parameters from the partials\n", what);
        return 2;
    }
    if (Status s = check_outputs({o.partial}, o.files); !s) {
        std::fprintf(env.err(), "ringscope sched %s: %s\n", what, s.error().to_string().c_str());
        return 2;
    }
    return -1;
}

}  // namespace

int run_sched_command(const std::vector<std::string>& args, CommandEnv& env) {
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
        std::fputs(kUsage, args.empty() ? env.err() : env.out());
        return args.empty() ? 2 : 0;
    }
    Options o;
    o.what = args[0];
    if (o.what != "latency" && o.what != "runtime" && o.what != "timeline") {
        std::fprintf(env.err(), "ringscope sched: unknown analysis '%s'\n%s", o.what.c_str(), kUsage);
        return 2;
    }
    if (int rc = parse_args(args, env, o); rc >= 0) return rc;
    if (int rc = check_options(o, env); rc >= 0) return rc;
    if (o.what == "latency")
        return run_analysis<LatencyAnalysis>(
            o, [](const Options& p) { return std::make_unique<LatencyAnalysis>(p.top); }, env);
    if (o.what == "runtime")
        return run_analysis<RuntimeAnalysis>(
            o, [](const Options&) { return std::make_unique<RuntimeAnalysis>(); }, env);
    return run_analysis<TimelineAnalysis>(
        o, [](const Options& p) { return std::make_unique<TimelineAnalysis>(p.window); }, env);
}

}  // namespace ringscope::sched
