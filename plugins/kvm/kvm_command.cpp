#include "kvm_command.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include <nlohmann/json.hpp>
#include <ringscope/output_check.hpp>

#include <ringscope/partial_result.hpp>
#include <ringscope/selection.hpp>
#include <ringscope/trace.hpp>

#include "kvm_exits.hpp"

namespace ringscope::kvm {
namespace {

constexpr const char* kUsage =
    "usage: ringscope kvm exits [--format text|json|csv] [--top N] [--guest-symbols [GUEST=]FILE]\n"
    "                           [SELECTION] [--partial OUT.json] FILE [GUEST_FILE...]\n"
    "       ringscope kvm exits --merge [--format F] [--partial OUT.json] PARTIAL.json...\n"
    "  per exit reason and per vCPU: count, share, exit-to-entry time (min/mean/p50/p99/max);\n"
    "  per reason the guest functions with the most exits (--top N, default 5), named from the guest\n"
    "  file's kallsyms or --guest-symbols (kallsyms text, System.map or ELF; repeatable)\n"
    "  --partial: write the mergeable state instead of printing; --merge: print (or write) what one\n"
    "  run over all the partials' inputs gives\n"
    "  SELECTION: the options every command that reads events takes (-F, --cpu, --pid, --comm, -e,\n"
    "  --from/--to, --first-event/--last-event; see `ringscope report --help`)\n";

int usage(CommandEnv& env, const std::string& msg) {
    if (!msg.empty()) std::fprintf(env.err(), "ringscope kvm: %s\n", msg.c_str());
    std::fputs(kUsage, env.err());
    return 2;
}

int fail(CommandEnv& env, const Error& e, int code) {
    std::fprintf(env.err(), "ringscope kvm: %s\n", e.to_string().c_str());
    return code;
}

// The merge of the partial results `paths` into `analysis` (made with the partials' --top).
int merge_partials(const std::vector<std::string>& paths, std::unique_ptr<KvmExitsAnalysis>& analysis,
                   std::vector<std::string>& inputs, CommandEnv& env) {
    auto parts = read_partials(paths);
    if (!parts) return fail(env, parts.error(), parts.error().code() == Errc::io ? 1 : 2);
    // read_partials checked that all name the analysis and params of the first.
    const PartialResult& first = parts->front();
    if (first.analysis != "kvm.exits" || first.command != std::vector<std::string>{"kvm", "exits"})
        return fail(
            env,
            Error(Errc::invalid_argument, "a partial result of '" + first.analysis + "', not of 'kvm.exits'")
                .in_file(paths.front()),
            2);
    const auto& params = first.params;
    auto top = params.find("top");
    char* end = nullptr;
    unsigned long n = top == params.end() ? 0 : std::strtoul(top->second.c_str(), &end, 10);
    if (params.size() != 1 || n == 0 || *end)
        return fail(
            env, Error(Errc::invalid_argument, "parameters do not fit kvm exits").in_file(paths.front()), 2);
    analysis = std::make_unique<KvmExitsAnalysis>(KvmExitsOptions{n});
    for (size_t i = 0; i < parts->size(); ++i) {
        const PartialResult& p = (*parts)[i];
        KvmExitsAnalysis part(KvmExitsOptions{n});
        if (Status s = part.load_state(nlohmann::json::parse(p.state_json)); !s)
            return fail(env, Error(s.error()).in_file(paths[i]), 2);
        analysis->merge(part);
        inputs.insert(inputs.end(), p.inputs.begin(), p.inputs.end());
    }
    return 0;
}

// One run over `files` (a host file first, its guests after: merged in time order). `traces` outlive
// the analysis's use: the guest function names it counts belong to their symbols.
int run_exits(const std::vector<std::string>& files, KvmExitsOptions opts, const EventSelection& sel,
              std::vector<Trace>& traces, std::unique_ptr<KvmExitsAnalysis>& result, CommandEnv& env) {
    TraceOpenOptions open_opts;
    open_opts.resolvers = &env.resolvers();
    auto opened = Trace::open_selected(files, open_opts, sel);
    if (!opened) return fail(env, opened.error(), opened.error().code() == Errc::parse ? 2 : 1);
    traces = std::move(*opened);
    std::vector<Trace*> ptrs;
    for (auto& t : traces) ptrs.push_back(&t);
    if (sel.lists_times()) return print_cpu_event_times(ptrs, sel, env.out(), env.err()) ? 1 : -1;

    result = std::make_unique<KvmExitsAnalysis>(opts);
    KvmExitsAnalysis& analysis = *result;
    analysis.begin(traces.front().context());
    uint64_t exits = 0;
    auto feed = [&](Trace& t, const Event& ev, int) {
        if (ev.system() == "kvm" && (ev.name() == "kvm_exit" || ev.name() == "kvm_entry")) {
            analysis.on_input_event(static_cast<size_t>(&t - traces.data()), ev);
            exits += ev.name() == "kvm_exit";
        }
        return 0;
    };
    if (traces.size() == 1)
        traces.front().iterate(feed);
    else
        Trace::iterate_multi(ptrs, feed);
    for (const auto& t : traces)
        if (!t.status()) {
            std::fprintf(env.err(), "ringscope kvm: %s\n", t.status().error().to_string().c_str());
            return 1;
        }
    if (!exits)
        std::fprintf(env.err(), "ringscope kvm exits: no kvm_exit events%s in %s\n",
                     sel.selects() ? " selected" : "",
                     files.size() == 1 ? files.front().c_str() : "the files");
    return 0;
}

}  // namespace

namespace {

// What `kvm exits` is asked for.
struct ExitsArgs {
    TableFormat format = TableFormat::text;
    KvmExitsOptions opts;
    bool top_set = false, merge = false;
    std::string partial;
    std::vector<std::string> files;
    EventSelection sel;
};

// The options after "exits" into `x`. Returns -1 to go on, or the exit code.
int parse_exits_args(const std::vector<std::string>& args, CommandEnv& env, ExitsArgs& x) {
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        std::string sel_error;
        const SelectionParse sp = parse_selection_option(args, i, x.sel, sel_error);
        if (sp == SelectionParse::error) return usage(env, sel_error);
        if (sp == SelectionParse::ok) continue;
        auto value = [&](const std::string& name, std::string& out) {
            if (a.rfind(name + "=", 0) == 0) {
                out = a.substr(name.size() + 1);
                return true;
            }
            if (a == name && i + 1 < args.size()) {
                out = args[++i];
                return true;
            }
            return false;
        };
        std::string v;
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, env.out());
            return 0;
        } else if (value("--format", v)) {
            if (!parse_table_format(v, x.format))
                return usage(env, "--format: '" + v + "' is not text, json or csv");
        } else if (value("--top", v)) {
            char* end = nullptr;
            unsigned long n = std::strtoul(v.c_str(), &end, 10);
            if (v.empty() || *end || n == 0 || n > static_cast<unsigned long>(kMaxTopFunctions))
                return usage(env, "--top: '" + v + "' is not a count");
            x.opts.top_functions = n;
            x.top_set = true;
        } else if (value("--guest-symbols", v)) {
            auto g = load_guest_symbols(v);
            if (!g) return fail(env, g.error(), g.error().code() == Errc::invalid_argument ? 2 : 1);
            env.resolvers().add(g->domain, g->resolver);
        } else if (value("--partial", v)) {
            x.partial = v;
        } else if (a == "--merge") {
            x.merge = true;
        } else if (a.size() > 1 && a[0] == '-') {
            return usage(env, "unknown or incomplete option '" + a + "'");
        } else {
            x.files.push_back(a);
        }
    }
    if (x.files.empty()) return usage(env, x.merge ? "no partial result" : "no trace file");
    if (x.merge && x.top_set) return usage(env, "--merge takes --top from the partials");
    if (Status s = check_outputs({x.partial}, x.files); !s) return fail(env, s.error(), 2);
    if (x.merge && x.sel.selects())
        return usage(env, "--merge reads partial results: select events when making them");
    return -1;
}

}  // namespace

int run_kvm_command(const std::vector<std::string>& args, CommandEnv& env) {
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
        if (!args.empty()) {
            std::fputs(kUsage, env.out());
            return 0;
        }
        return usage(env, "");
    }
    if (args[0] != "exits") return usage(env, "unknown subcommand '" + args[0] + "'");
    ExitsArgs x;
    if (int rc = parse_exits_args(args, env, x); rc >= 0) return rc;

    std::vector<Trace> traces;
    std::unique_ptr<KvmExitsAnalysis> merged;
    std::vector<std::string> inputs = x.files;
    if (x.merge) {
        inputs.clear();
        if (int rc = merge_partials(x.files, merged, inputs, env)) return rc;
    } else if (int rc = run_exits(x.files, x.opts, x.sel, traces, merged, env)) {
        return rc < 0 ? 0 : rc;  // -1: the selection's times were listed
    }
    KvmExitsAnalysis& analysis = *merged;
    if (!x.partial.empty()) {
        PartialResult p{"kvm.exits",
                        {"kvm", "exits"},
                        {{"top", std::to_string(analysis.top_functions())}},
                        std::move(inputs),
                        analysis.save_state().dump()};
        if (Status s = write_partial(x.partial, p); !s) return fail(env, s.error(), 1);
        return 0;
    }
    TableCollector tables;
    analysis.end(tables);
    write_tables(env.out(), tables.tables, x.format);  // the SDK's renderer, as the other analyses
    return 0;
}

}  // namespace ringscope::kvm
