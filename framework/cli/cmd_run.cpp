// `ringscope run ANALYSIS.yaml [--set key.path=value]... [--check] [--quiet]`: one file says the
// whole run. Everything is validated before any work starts (all errors at once, file:line:column,
// exit 2); the trace files are read once, that one merged pass feeding the event outputs and every
// event analysis; outputs are written under temporary names and renamed only when the run succeeded.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include <ringscope/selection.hpp>
#include <ringscope/trace.hpp>

#include "framework/api/read_position.hpp"
#include "framework/cli/cli_context.hpp"
#include "framework/cli/run_inputs.hpp"
#include "framework/cli/run_outputs.hpp"
#include "framework/cli/run_pass.hpp"
#include "framework/config/analysis_catalog.hpp"
#include "framework/config/analysis_pass.hpp"
#include "framework/config/run_config.hpp"
#include "framework/io/atomic_output.hpp"
#include "framework/io/mapped_file.hpp"
#include "framework/io/trace_dat_types.hpp"
#include "framework/plugin/plugin_paths.hpp"
#include "framework/results/table_json.hpp"
#include "framework/sinks/output_check.hpp"
#include "framework/sinks/progress_bar.hpp"
#include "framework/symbols/guest_symbols.hpp"
#include "framework/symbols/resolver_registry.hpp"

namespace fs = std::filesystem;

namespace ringscope::cli {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kUsage =
    "usage: ringscope run ANALYSIS.yaml [FILE...] [--set KEY.PATH=VALUE]... [SELECTION] [--check] [--quiet]\n"
    "\n"
    "Runs what the YAML file says: inputs, plugins, symbols, filters, analyses, outputs\n"
    "(see config/default.yaml). FILEs replace the file's inputs (those a plugin decoder reads take\n"
    "the first input's options). --set overrides a key, e.g.\n"
    "--set analyses.sched.latency.top=20; --check validates only. Validation errors: all at once as\n"
    "FILE:LINE:COLUMN, exit code 2. SELECTION (below) applies to the event pass, with the file's filters.\n";

// `run FILE` where FILE is not a YAML run: what it is, in one line (nullopt when it may be one).
std::optional<std::string> not_a_run_file(const std::string& path) {
    auto f = io::MappedFile::open(path);
    if (!f) return std::nullopt;  // the loader says why it does not read
    std::span<const uint8_t> b = (*f)->bytes();
    if (io::has_trace_dat_magic(b))
        return path + ": a trace.dat file, not a run file (ringscope run ANALYSIS.yaml [" + path +
               "...], or ringscope report " + path + ")";
    for (size_t i = 0; i < std::min<size_t>(b.size(), 4096); ++i)
        if (b[i] == 0)
            return path + ": binary data, not a run file (expected a YAML file: see config/default.yaml)";
    return std::nullopt;
}

// Loads the plugins the run asks for: folders from the file, then the usual search path; `load`
// keeps only the named plugins, `skip` drops some (names are the files' stems: sched, kvm, ...).
void load_plugins(const config::RunConfig& c, const CliContext& ctx, plugin::PluginHost& host,
                  std::vector<config::Diagnostic>& errors) {
    std::vector<std::string> dirs = c.plugin_paths;
    for (const auto& d : plugin::plugin_search_path(ctx.plugin_dirs)) dirs.push_back(d);
    std::set<std::string> seen, available;
    for (const auto& d : dirs) {
        std::vector<std::string> skipped;
        std::vector<fs::path> files;
        for (const auto& f : plugin::plugin_files(d, skipped)) files.emplace_back(f);
        for (const auto& why : skipped) ctx.error(why);
        for (const auto& f : files) {
            std::string stem = f.stem().string();
            available.insert(stem);
            if (seen.count(stem)) continue;  // the first folder that has it wins
            if (!c.plugin_load.empty() &&
                std::find(c.plugin_load.begin(), c.plugin_load.end(), stem) == c.plugin_load.end())
                continue;
            if (std::find(c.plugin_skip.begin(), c.plugin_skip.end(), stem) != c.plugin_skip.end()) continue;
            seen.insert(stem);
            host.load_file(f.string());
        }
    }
    for (const auto& list : {&c.plugin_load, &c.plugin_skip})
        for (const auto& name : *list)
            if (!available.count(name))
                errors.push_back({c.plugin_name_pos.count(name) ? c.plugin_name_pos.at(name) : c.plugins_pos,
                                  "unknown plugin '" + name + "' (not in any plugin folder)"});
    for (const auto& d : host.diagnostics()) errors.push_back({c.plugins_pos, d});
}

std::string params_text(const AnalysisParams& p) {
    std::string s;
    for (const auto& [k, v] : p.values) s += (s.empty() ? "" : ", ") + k + "=" + v;
    return s.empty() ? "none" : s;
}

// What the command line says.
struct RunArgs {
    std::string path;
    std::vector<std::string> sets, input_files;
    std::vector<std::string> sel_words;  // the selection as given, for command-backed analyses
    EventSelection sel;
    bool check_only = false, quiet = false;
};

// Fills A from ARGS; an exit code when the command ends here (help, a usage error).
std::optional<int> parse_args(CliContext& ctx, const std::vector<std::string>& args, RunArgs& a) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& w = args[i];
        std::string sel_error;
        const size_t first = i;
        const SelectionParse sp = parse_selection_option(args, i, a.sel, sel_error);
        if (sp == SelectionParse::error) {
            ctx.error("run: " + sel_error);
            return kExitUsage;
        }
        if (sp == SelectionParse::ok) {
            a.sel_words.insert(a.sel_words.end(), args.begin() + first, args.begin() + i + 1);
            continue;
        }
        if (w == "-h" || w == "--help") {
            std::fputs(kUsage, stdout);
            std::fputs(selection_usage(), stdout);
            return kExitOk;
        } else if (w == "--set" && i + 1 < args.size()) {
            a.sets.push_back(args[++i]);
        } else if (w.rfind("--set=", 0) == 0) {
            a.sets.push_back(w.substr(6));
        } else if (w == "--check") {
            a.check_only = true;
        } else if (w == "--quiet" || w == "-q") {
            a.quiet = true;
        } else if (!w.empty() && w[0] == '-') {
            ctx.error("run: unknown or incomplete option '" + w + "'\n" + kUsage);
            return kExitUsage;
        } else if (a.path.empty()) {
            a.path = w;
        } else {
            a.input_files.push_back(w);
        }
    }
    if (a.path.empty()) {
        std::fputs(kUsage, stderr);
        return kExitUsage;
    }
    if (auto what = not_a_run_file(a.path)) {
        ctx.error("run: " + *what);
        return kExitRuntime;
    }
    if (a.sel.lists_times()) {
        ctx.error("run: --first-event/--last-event list times: use them with report or an analysis command");
        return kExitUsage;
    }
    return std::nullopt;
}

// A run, validated: what the pass and the outputs need.
struct Run {
    RunArgs args;
    config::RunConfig cfg;
    plugin::PluginHost host;
    config::AnalysisCatalog catalog;
    config::AnalysisPass pass;
    symbols::ResolverRegistry resolvers;
    std::vector<RunFilter> filters;
    std::vector<std::unique_ptr<DecodedInput>> decoded;

    bool wants_pass() const {
        const config::OutputSpec& o = cfg.outputs;
        return !pass.empty() || !o.sqlite.empty() || !o.perfetto.empty() || !o.perfetto_trace.empty() ||
               !o.html.empty();
    }
    std::vector<std::string> trace_dat_inputs() const {
        std::vector<std::string> out;
        for (const auto& in : cfg.inputs)
            if (is_trace_dat_file(in.path)) out.push_back(in.path);
        return out;
    }
};

// The file's inputs, or the command line's instead.
void replace_inputs(Run& r, std::vector<config::Diagnostic>& errors) {
    const auto& files = r.args.input_files;
    if (files.empty()) return;
    // The first input's options go to the FILEs a plugin decoder reads (the file's way to give
    // them their code: `run config/pt-flow.yaml other.pt`).
    std::vector<config::PluginOptionSpec> options;
    if (!r.cfg.inputs.empty()) options = r.cfg.inputs.front().options;
    r.cfg.inputs.clear();
    for (size_t i = 0; i < files.size(); ++i) {
        const config::SourcePos at{"command line", 1, static_cast<int>(i + 1)};
        std::error_code ec;
        if (!fs::is_regular_file(files[i], ec)) {
            errors.push_back({at, "input '" + files[i] + "' does not exist or is not a file"});
            continue;
        }
        r.cfg.inputs.push_back(
            {files[i], fs::path(files[i]).stem().string(), at,
             is_trace_dat_file(files[i]) ? std::vector<config::PluginOptionSpec>{} : options});
    }
}

// Event analyses get their handlers now: a plugin that refuses the parameters is a validation
// error like the others.
void check_analyses(Run& r, std::vector<config::Diagnostic>& errors) {
    for (const auto& run : r.cfg.analyses) {
        const config::CatalogEntry* e = r.catalog.find(run.name);
        if (e && !e->command.empty() && !e->takes_selection && r.args.sel.selects() && !r.args.quiet)
            std::fprintf(stderr, "run: %s reads no events: the selection does not apply to it\n",
                         run.name.c_str());
        if (!e || !e->command.empty()) continue;
        if (!r.pass.add(e->spec, run.params)) {
            std::string bounds;
            for (const auto& p : e->spec.params) bounds += "; " + p.name + ": " + p.doc;
            errors.push_back({run.pos, run.name + ": the plugin '" + e->plugin +
                                           "' refused the parameters (" + params_text(run.params) + ")" +
                                           bounds});
        }
    }
}

// Inputs other than trace.dat are opened now, through their decoders with their options; the
// filters must each reach some input (the trace.dat ones are opened to check them).
void check_inputs(Run& r, std::vector<config::Diagnostic>& errors) {
    std::vector<FilterReach> reaches;
    const EventSelection rest = selection_without_filters(r.args.sel);
    const bool filtered = !r.filters.empty() || r.args.sel.selects();
    for (size_t i = 0; i < r.cfg.inputs.size(); ++i) {
        const config::InputSpec& in = r.cfg.inputs[i];
        if (!is_trace_dat_file(in.path)) {
            if (!r.wants_pass() && in.options.empty()) continue;  // read by command-backed analyses only
            auto d = open_decoded_input(r.cfg, i, r.host, r.resolvers, r.filters, r.args.sel, errors);
            if (!d) continue;
            reaches.push_back(d->reach);
            r.decoded.push_back(std::move(d));
            continue;
        }
        if (!in.options.empty())
            errors.push_back(
                {in.options.front().name_pos,
                 "options are for inputs a plugin decoder reads; '" + in.path + "' is a trace.dat file"});
        if (!filtered) continue;
        TraceOpenOptions o;
        o.load_plugins = false;
        auto t = Trace::open(in.path, o);
        if (!t) {
            errors.push_back({in.pos, t.error().to_string()});
            continue;
        }
        reaches.push_back(
            reach_filters(r.filters, [&](const RunFilter& f) { return add_run_filter(*t, f); }));
        if (Status s = t->select(rest); !s)
            errors.push_back({{"command line", 1, 1}, "bad selection: " + s.error().to_string()});
    }
    check_filter_reach(r.filters, reaches, errors);
    if (!r.cfg.outputs.html.empty() && r.trace_dat_inputs().empty())
        errors.push_back(
            {r.cfg.outputs.pos["html"],
             "outputs.html: its timeline shows trace.dat inputs, and none of the inputs is one"});
}

// Outputs must not destroy an input, this file, a device node or each other.
void check_outputs(const Run& r, std::vector<config::Diagnostic>& errors) {
    std::vector<std::string> reads{r.args.path}, keys, outs;
    for (const auto& in : r.cfg.inputs) reads.push_back(in.path);
    for (const auto& s : r.cfg.symbols) reads.push_back(s.path);
    for (const auto& [key, out] : output_files(r.cfg.outputs)) {
        keys.push_back(key);
        outs.push_back(*out);
    }
    for (auto& [i, e] : sinks::output_problems(outs, reads)) {
        auto at = r.cfg.outputs.pos.find(keys[i]);
        errors.push_back({at != r.cfg.outputs.pos.end() ? at->second : config::SourcePos{r.args.path},
                          "outputs." + keys[i] + ": " + e.message()});
    }
}

// Validation: everything before any work, every error at once (an empty list: go on).
std::vector<config::Diagnostic> validate(CliContext& ctx, Run& r) {
    std::vector<config::Diagnostic> errors;
    r.cfg = config::load_run_config(r.args.path, r.args.sets, errors, !r.args.input_files.empty());
    replace_inputs(r, errors);
    r.args.quiet = r.args.quiet || r.cfg.quiet;
    r.filters = run_filters(r.cfg, r.args.sel);
    load_plugins(r.cfg, ctx, r.host, errors);
    r.catalog.add_registered(r.host);
    r.catalog.add_command_backed(r.host);
    config::resolve_analyses(r.cfg, r.catalog, errors);
    check_analyses(r, errors);
    for (const auto& res : r.host.resolvers()) r.resolvers.add(res.domain, res.resolver);
    for (const auto& s : r.cfg.symbols) {
        auto res = symbols::load_symbol_file(s.path);
        if (!res)
            errors.push_back({s.pos, res.error().to_string()});
        else
            r.resolvers.add(s.domain, *res);
    }
    check_inputs(r, errors);
    check_outputs(r, errors);
    // In file order; --set errors after the file's.
    std::stable_sort(errors.begin(), errors.end(),
                     [&](const config::Diagnostic& a, const config::Diagnostic& b) {
                         bool fa = a.pos.file == r.args.path, fb = b.pos.file == r.args.path;
                         if (fa != fb) return fa;
                         return std::tie(a.pos.file, a.pos.line, a.pos.column) <
                                std::tie(b.pos.file, b.pos.line, b.pos.column);
                     });
    return errors;
}

// The command-backed analyses (a plugin's command, its JSON as tables) and the pass's, in the
// file's order.
Expected<std::vector<AnalysisOutcome>> analyses(Run& r, std::vector<config::AnalysisTables>& pass_tables,
                                                sinks::ProgressBar& progress) {
    std::vector<std::string> files;
    for (const auto& in : r.cfg.inputs) files.push_back(in.path);
    std::vector<AnalysisOutcome> results;
    for (const auto& run : r.cfg.analyses) {
        const config::CatalogEntry* e = r.catalog.find(run.name);
        if (e->command.empty()) {
            for (auto& t : pass_tables)
                if (t.name == run.name) {
                    nlohmann::ordered_json doc = results::tables_json(t.tables);
                    results.push_back({run.name, std::move(doc), std::move(t.tables)});
                }
            continue;
        }
        progress.stage(run.name);
        std::vector<std::string> selection = r.args.sel_words;
        for (const auto& f : r.cfg.filters) selection.insert(selection.end(), {"-F", f.text});
        auto res = config::run_command_analysis(*e, run.params, selection, files, r.host, r.resolvers);
        if (!res) return res.error();
        std::vector<ResultTable> tables = result_tables(run.name, res->json);
        results.push_back({run.name, std::move(res->json), std::move(tables)});
    }
    return results;
}

// The run itself, once validated: the pass, the analyses, the outputs renamed into place together.
int execute(CliContext& ctx, Run& r) {
    auto fail = [&](const Error& e) {
        std::fprintf(stderr, "%s run: %s\n", ctx.program.c_str(), e.to_string().c_str());
        return kExitRuntime;
    };
    for (const auto& [key, o] : output_files(r.cfg.outputs)) {
        fs::path parent = fs::path(*o).parent_path();
        std::error_code ec;
        if (!o->empty() && !parent.empty() && !fs::create_directories(parent, ec) && ec)
            return fail(Error(Errc::io, parent.string() + ": " + ec.message()));
    }
    sinks::ProgressBar progress(!r.args.quiet);
    const uint64_t pages_before = api::pages_loaded_in_process();
    EventOutputs events;
    if (Status s = events.create(r.cfg.outputs); !s) return fail(s.error());
    PassResult pass;
    if (r.wants_pass()) {
        auto p =
            run_event_pass(r.cfg, r.decoded, r.filters, r.args.sel, r.resolvers, r.pass, events, progress);
        if (!p) return fail(p.error());
        pass = std::move(*p);
    }
    auto results = analyses(r, pass.tables, progress);
    if (!results) return fail(results.error());
    const uint64_t pages_loaded = api::pages_loaded_in_process() - pages_before;
    progress.stage("outputs");
    // Everything computed: the outputs are completed under temporary names, then renamed into
    // place together, so a failure leaves none of them behind.
    std::vector<std::unique_ptr<io::AtomicOutput>> pending;
    if (Status s = events.finish(); !s) return fail(s.error());
    const ReadingStats reading{pass.events, pass.read.bytes_total, pass.read.pages_total, pages_loaded};
    if (Status s = write_result_outputs(ctx, r.cfg, r.args.path, *results, events.summary, reading,
                                        r.trace_dat_inputs(), progress, pending);
        !s)
        return fail(s.error());
    if (Status s = events.commit(); !s) return fail(s.error());
    for (auto& out : pending)
        if (Status s = out->commit(); !s) return fail(s.error());
    progress.finish();
    if (!r.args.quiet) {
        uint64_t decoded_bytes = 0;  // the inputs plugin decoders read have no CPU data pages
        for (const auto& d : r.decoded) decoded_bytes += d->file->bytes().size();
        std::fprintf(
            stderr, "%s: %llu events, %zu analyses, %s of CPU data read (%llu of %llu pages)%s\n",
            r.args.path.c_str(), static_cast<unsigned long long>(events.summary.total_events()),
            results->size(), sinks::ProgressBar::bytes_text(pass.read.bytes_total).c_str(),
            static_cast<unsigned long long>(pages_loaded),
            static_cast<unsigned long long>(pass.read.pages_total),
            decoded_bytes && r.wants_pass()
                ? (", " + sinks::ProgressBar::bytes_text(decoded_bytes) + " of plugin-decoded inputs").c_str()
                : "");
        for (const auto& [key, o] : output_files(r.cfg.outputs))
            std::fprintf(stderr, "  wrote %s\n", o->c_str());
    }
    return kExitOk;
}

}  // namespace

int run_run(CliContext& ctx, const std::vector<std::string>& args) {
    Run r;
    if (auto code = parse_args(ctx, args, r.args)) return *code;
    const std::vector<config::Diagnostic> errors = validate(ctx, r);
    if (!errors.empty()) {
        for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
        std::fprintf(stderr, "%s run: %zu error%s, nothing was run\n", ctx.program.c_str(), errors.size(),
                     errors.size() == 1 ? "" : "s");
        return kExitUsage;
    }
    if (r.args.check_only) {
        if (!r.args.quiet)
            std::fprintf(stderr, "%s: ok (%zu inputs, %zu analyses)\n", r.args.path.c_str(),
                         r.cfg.inputs.size(), r.cfg.analyses.size());
        return kExitOk;
    }
    return execute(ctx, r);
}

}  // namespace ringscope::cli
