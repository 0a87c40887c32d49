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
#include <ringscope/text_escape.hpp>
#include <ringscope/trace.hpp>

#include "framework/api/read_position.hpp"
#include "framework/cli/cli_context.hpp"
#include "framework/cli/view_session.hpp"
#include "framework/config/analysis_catalog.hpp"
#include "framework/config/analysis_pass.hpp"
#include "framework/config/run_config.hpp"
#include "framework/io/atomic_output.hpp"
#include "framework/io/mapped_file.hpp"
#include "framework/io/trace_dat_types.hpp"
#include "framework/perfetto/trace_writer.hpp"
#include "framework/plugin/plugin_paths.hpp"
#include "framework/results/table_json.hpp"
#include "framework/sinks/html_report.hpp"
#include "framework/sinks/output_check.hpp"
#include "framework/sinks/perfetto_sink.hpp"
#include "framework/sinks/progress_bar.hpp"
#include "framework/sinks/sqlite_sink.hpp"
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
    "(see config/default.yaml). FILEs replace the file's inputs. --set overrides a key, e.g.\n"
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

// A command-backed analysis's JSON -> tables for the text and CSV outputs: arrays of objects become
// tables, objects one-row tables, named "<analysis>.<key>" unless the key is already a full name.
std::vector<ResultTable> result_tables(const std::string& name, const json& r) {
    std::vector<ResultTable> out;
    if (!r.is_object()) return out;
    for (const auto& [k, v] : r.items()) {
        json rows = v.is_object() ? json::array({v}) : v;
        if (!rows.is_array() || rows.empty() || !rows[0].is_object()) continue;
        ResultTable t;
        t.name = k.find('.') != std::string::npos ? k : name + "." + k;
        for (const auto& [col, x] : rows[0].items()) t.columns.push_back(col);
        for (const auto& row : rows) {
            std::vector<Cell> cells;
            for (const auto& col : t.columns) {
                const json& x = row.contains(col) ? row[col] : json();
                if (x.is_string())
                    cells.emplace_back(x.get<std::string>());
                else if (x.is_number_unsigned())
                    cells.emplace_back(x.get<uint64_t>());
                else if (x.is_number_integer())
                    cells.emplace_back(x.get<int64_t>());
                else if (x.is_number_float())
                    cells.emplace_back(x.get<double>());
                else if (x.is_null())
                    cells.emplace_back(std::monostate{});
                else
                    cells.emplace_back(x.dump());
            }
            t.rows.push_back(std::move(cells));
        }
        out.push_back(std::move(t));
    }
    return out;
}

std::string params_text(const AnalysisParams& p) {
    std::string s;
    for (const auto& [k, v] : p.values) s += (s.empty() ? "" : ", ") + k + "=" + v;
    return s.empty() ? "none" : s;
}

// What one analysis gave: its tables (text, CSV) and their JSON.
struct AnalysisOutcome {
    std::string name;
    json doc;
    std::vector<ResultTable> tables;
};

// How far the event pass has read, over all inputs.
api::ReadPosition read_position(std::vector<Trace>& traces) {
    api::ReadPosition sum;
    for (auto& t : traces) {
        api::ReadPosition p = api::read_position(t);
        sum.bytes_loaded += p.bytes_loaded;
        sum.bytes_total += p.bytes_total;
        sum.pages_total += p.pages_total;
    }
    return sum;
}

// The outputs a run file names, by key.
std::vector<std::pair<const char*, const std::string*>> output_files(const config::OutputSpec& o) {
    std::vector<std::pair<const char*, const std::string*>> out;
    for (auto [key, p] : {std::pair{"text", &o.text},
                          {"json", &o.json},
                          {"csv", &o.csv},
                          {"sqlite", &o.sqlite},
                          {"perfetto", &o.perfetto},
                          {"html", &o.html},
                          {"perfetto-trace", &o.perfetto_trace}})
        if (!p->empty()) out.emplace_back(key, p);
    return out;
}

// Writes a complete output under its temporary name; the run renames them all at its end.
template <class Write>
Status write_pending(std::vector<std::unique_ptr<io::AtomicOutput>>& pending, const std::string& path,
                     Write write) {
    auto out = std::make_unique<io::AtomicOutput>(path);
    auto file = out->open();
    if (!file) return file.error();
    write(*file);
    if (Status s = out->close(); !s) return s;
    pending.push_back(std::move(out));
    return {};
}

Status write_pending_text(std::vector<std::unique_ptr<io::AtomicOutput>>& pending, const std::string& path,
                          std::string_view text) {
    return write_pending(pending, path, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
}

// The html output: `view --export`'s page of FILES with RESULTS (HTML) under it; RUN (JSON) names
// the run in the page's header and title.
Expected<view::ExportPage> html_page(CliContext& ctx, const std::vector<std::string>& files,
                                     const std::string& results, const std::string& run) {
    auto session = ViewSession::open(ctx, files, {});
    if (!session) return session.error();
    return view::build_export((*session)->api(), (*session)->index(), (*session)->events(), results,
                              ViewSession::export_cap(), run);
}

}  // namespace

int run_run(CliContext& ctx, const std::vector<std::string>& args) {
    std::string path;
    std::vector<std::string> sets, input_files;
    std::vector<std::string> sel_words;  // the selection as given, for command-backed analyses
    EventSelection sel;
    bool check_only = false, quiet = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        std::string sel_error;
        const size_t first = i;
        const SelectionParse sp = parse_selection_option(args, i, sel, sel_error);
        if (sp == SelectionParse::error) {
            ctx.error("run: " + sel_error);
            return kExitUsage;
        }
        if (sp == SelectionParse::ok) {
            sel_words.insert(sel_words.end(), args.begin() + first, args.begin() + i + 1);
            continue;
        }
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            std::fputs(selection_usage(), stdout);
            return kExitOk;
        } else if (a == "--set" && i + 1 < args.size()) {
            sets.push_back(args[++i]);
        } else if (a.rfind("--set=", 0) == 0) {
            sets.push_back(a.substr(6));
        } else if (a == "--check") {
            check_only = true;
        } else if (a == "--quiet" || a == "-q") {
            quiet = true;
        } else if (!a.empty() && a[0] == '-') {
            ctx.error("run: unknown or incomplete option '" + a + "'\n" + kUsage);
            return kExitUsage;
        } else if (path.empty()) {
            path = a;
        } else {
            input_files.push_back(a);
        }
    }
    if (path.empty()) {
        std::fputs(kUsage, stderr);
        return kExitUsage;
    }
    if (auto what = not_a_run_file(path)) {
        ctx.error("run: " + *what);
        return kExitRuntime;
    }
    if (sel.lists_times()) {
        ctx.error("run: --first-event/--last-event list times: use them with report or an analysis command");
        return kExitUsage;
    }

    // Validation: everything before any work, every error at once.
    std::vector<config::Diagnostic> errors;
    config::RunConfig cfg = config::load_run_config(path, sets, errors, !input_files.empty());
    if (!input_files.empty()) {
        cfg.inputs.clear();
        for (size_t i = 0; i < input_files.size(); ++i) {
            const config::SourcePos at{"command line", 1, static_cast<int>(i + 1)};
            std::error_code ec;
            if (!fs::is_regular_file(input_files[i], ec)) {
                errors.push_back({at, "input '" + input_files[i] + "' does not exist or is not a file"});
                continue;
            }
            cfg.inputs.push_back({input_files[i], fs::path(input_files[i]).stem().string(), at});
        }
    }
    quiet = quiet || cfg.quiet;
    plugin::PluginHost host;
    config::AnalysisCatalog catalog;
    config::AnalysisPass pass;
    symbols::ResolverRegistry resolvers;
    std::vector<std::string> files, filters;
    for (const auto& in : cfg.inputs) files.push_back(in.path);
    for (const auto& f : cfg.filters) filters.push_back(f.text);
    {
        load_plugins(cfg, ctx, host, errors);
        catalog.add_registered(host);
        catalog.add_command_backed(host);
        config::resolve_analyses(cfg, catalog, errors);
        // Event analyses get their handlers now: a plugin that refuses the parameters is a
        // validation error like the others.
        for (const auto& run : cfg.analyses) {
            const config::CatalogEntry* e = catalog.find(run.name);
            if (e && !e->command.empty() && !e->takes_selection && sel.selects() && !quiet)
                std::fprintf(stderr, "run: %s reads no events: the selection does not apply to it\n",
                             run.name.c_str());
            if (!e || !e->command.empty()) continue;
            if (!pass.add(e->spec, run.params)) {
                std::string bounds;
                for (const auto& p : e->spec.params) bounds += "; " + p.name + ": " + p.doc;
                errors.push_back({run.pos, run.name + ": the plugin '" + e->plugin +
                                               "' refused the parameters (" + params_text(run.params) + ")" +
                                               bounds});
            }
        }
        for (const auto& r : host.resolvers()) resolvers.add(r.domain, r.resolver);
        for (const auto& s : cfg.symbols) {
            auto r = symbols::load_symbol_file(s.path);
            if (!r)
                errors.push_back({s.pos, r.error().to_string()});
            else
                resolvers.add(s.domain, *r);
        }
        // The event pass reads trace.dat files only; other inputs (Intel PT) feed their own analyses.
        if (!pass.empty() || !cfg.outputs.sqlite.empty() || !cfg.outputs.perfetto.empty() ||
            !cfg.outputs.perfetto_trace.empty() || !cfg.outputs.html.empty()) {
            for (const auto& in : cfg.inputs) {
                auto f = io::MappedFile::open(in.path);
                if (f && !io::has_trace_dat_magic((*f)->bytes()))
                    errors.push_back({in.pos, "input '" + in.path +
                                                  "' is not a trace.dat file: the event analyses and the "
                                                  "sqlite, perfetto and html outputs read trace.dat only"});
            }
        }
        // Filters are checked against the first trace.dat input's event formats (Intel PT
        // streams have none).
        const config::InputSpec* events_input = nullptr;
        for (const auto& in : cfg.inputs) {
            auto f = io::MappedFile::open(in.path);
            if (f && io::has_trace_dat_magic((*f)->bytes())) {
                events_input = &in;
                break;
            }
        }
        if (events_input && (!cfg.filters.empty() || sel.selects())) {
            TraceOpenOptions o;
            o.load_plugins = false;
            auto t = Trace::open(events_input->path, o);
            if (!t) {
                errors.push_back({events_input->pos, t.error().to_string()});
            } else {
                for (const auto& f : cfg.filters)
                    if (Status s = t->add_filter(f.text); !s)
                        errors.push_back({f.pos, "bad filter: " + s.error().to_string()});
                if (Status s = t->select(sel); !s)
                    errors.push_back({{"command line", 1, 1}, "bad selection: " + s.error().to_string()});
            }
        }
    }
    {
        // Outputs must not destroy an input, this file, a device node or each other.
        std::vector<std::string> reads{path}, keys, outs;
        for (const auto& in : cfg.inputs) reads.push_back(in.path);
        for (const auto& s : cfg.symbols) reads.push_back(s.path);
        for (const auto& [key, out] : output_files(cfg.outputs)) {
            keys.push_back(key);
            outs.push_back(*out);
        }
        for (auto& [i, e] : sinks::output_problems(outs, reads)) {
            auto at = cfg.outputs.pos.find(keys[i]);
            errors.push_back({at != cfg.outputs.pos.end() ? at->second : config::SourcePos{path},
                              "outputs." + keys[i] + ": " + e.message()});
        }
    }
    if (!errors.empty()) {
        // In file order; --set errors after the file's.
        std::stable_sort(errors.begin(), errors.end(),
                         [&](const config::Diagnostic& a, const config::Diagnostic& b) {
                             bool fa = a.pos.file == path, fb = b.pos.file == path;
                             if (fa != fb) return fa;
                             return std::tie(a.pos.file, a.pos.line, a.pos.column) <
                                    std::tie(b.pos.file, b.pos.line, b.pos.column);
                         });
        for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
        std::fprintf(stderr, "%s run: %zu error%s, nothing was run\n", ctx.program.c_str(), errors.size(),
                     errors.size() == 1 ? "" : "s");
        return kExitUsage;
    }
    if (check_only) {
        if (!quiet)
            std::fprintf(stderr, "%s: ok (%zu inputs, %zu analyses)\n", path.c_str(), cfg.inputs.size(),
                         cfg.analyses.size());
        return kExitOk;
    }

    auto fail = [&](const Error& e) {
        std::fprintf(stderr, "%s run: %s\n", ctx.program.c_str(), e.to_string().c_str());
        return kExitRuntime;
    };
    for (const auto& [key, o] : output_files(cfg.outputs)) {
        fs::path parent = fs::path(*o).parent_path();
        std::error_code ec;
        if (!o->empty() && !parent.empty() && !fs::create_directories(parent, ec) && ec)
            return fail(Error(Errc::io, parent.string() + ": " + ec.message()));
    }
    sinks::ProgressBar progress(!quiet);
    const uint64_t pages_before = api::pages_loaded_in_process();

    // One pass over the events feeds the event outputs and every event analysis; temporaries until
    // the end.
    sinks::RunSummary summary;
    std::vector<sinks::EventSink*> event_sinks{&summary};
    std::unique_ptr<sinks::SqliteSink> sqlite;
    std::unique_ptr<sinks::PerfettoSink> perfetto;
    if (!cfg.outputs.sqlite.empty()) {
        auto s = sinks::SqliteSink::create(cfg.outputs.sqlite);
        if (!s) return fail(s.error());
        sqlite = std::move(*s);
        event_sinks.push_back(sqlite.get());
    }
    if (!cfg.outputs.perfetto.empty()) {
        auto s = sinks::PerfettoSink::create(cfg.outputs.perfetto);
        if (!s) return fail(s.error());
        perfetto = std::move(*s);
        event_sinks.push_back(perfetto.get());
    }
    std::unique_ptr<perfetto::TraceWriter> perfetto_trace;
    if (!cfg.outputs.perfetto_trace.empty()) {
        perfetto::WriterOptions wopts;
        wopts.compact_sched = cfg.outputs.perfetto_compact_sched;
        auto w = perfetto::TraceWriter::create(cfg.outputs.perfetto_trace, wopts);
        if (!w) return fail(w.error());
        perfetto_trace = std::move(*w);
    }
    std::vector<config::AnalysisTables> pass_tables;
    api::ReadPosition read;
    uint64_t events = 0;
    // Analyses of other inputs (Intel PT) need no event pass when nothing else asks for one.
    if (!pass.empty() || sqlite || perfetto || perfetto_trace || !cfg.outputs.html.empty()) {
        TraceOpenOptions o;
        o.load_plugins = false;
        o.resolvers = &resolvers;
        std::vector<Trace> traces;
        for (size_t i = 0; i < cfg.inputs.size(); ++i) {
            auto t = Trace::open(cfg.inputs[i].path, o);
            if (!t) return fail(t.error());
            for (const auto& f : filters)
                if (Status s = t->add_filter(f); !s) return fail(s.error());
            if (Status s = t->select(sel); !s) return fail(s.error());
            for (auto* s : event_sinks)
                if (Status st = s->add_input(static_cast<int>(i), cfg.inputs[i].name, cfg.inputs[i].path,
                                             t->cpu_count());
                    !st)
                    return fail(st.error());
            if (perfetto_trace) perfetto_trace->add_input(static_cast<int>(i), api::trace_file(*t));
            traces.push_back(std::move(*t));
        }
        std::vector<Trace*> ptrs;
        for (auto& t : traces) ptrs.push_back(&t);
        progress.stage("events");
        if (!traces.empty()) pass.begin(traces.front().context());
        Trace::iterate_multi(ptrs, [&](Trace& t, const Event& ev, int) {
            int input = static_cast<int>(&t - traces.data());
            for (auto* s : event_sinks) s->on_event(input, ev);
            if (perfetto_trace) perfetto_trace->on_event(input, ev.cpu(), ev);
            pass.on_event(ev);
            if ((++events & 255) == 0 && progress.enabled()) {
                api::ReadPosition p = read_position(traces);
                progress.update(events, p.bytes_loaded, p.bytes_total);
            }
            return 0;
        });
        for (auto& t : traces)
            if (!t.status()) return fail(t.status().error());
        read = read_position(traces);
        pass_tables = pass.end();
    }

    std::vector<AnalysisOutcome> results;
    for (const auto& run : cfg.analyses) {
        const config::CatalogEntry* e = catalog.find(run.name);
        if (e->command.empty()) {
            for (auto& t : pass_tables)
                if (t.name == run.name) {
                    json doc = results::tables_json(t.tables);
                    results.push_back({run.name, std::move(doc), std::move(t.tables)});
                }
            continue;
        }
        progress.stage(run.name);
        std::vector<std::string> selection = sel_words;
        for (const auto& f : cfg.filters) selection.insert(selection.end(), {"-F", f.text});
        auto r = config::run_command_analysis(*e, run.params, selection, files, host, resolvers);
        if (!r) return fail(r.error());
        std::vector<ResultTable> tables = result_tables(run.name, r->json);
        results.push_back({run.name, std::move(r->json), std::move(tables)});
    }
    const uint64_t pages_loaded = api::pages_loaded_in_process() - pages_before;
    progress.stage("outputs");

    // Everything computed: the outputs are completed under temporary names, then renamed into
    // place together, so a failure leaves none of them behind.
    std::vector<std::unique_ptr<io::AtomicOutput>> pending;
    if (sqlite)
        if (Status s = sqlite->finish(); !s) return fail(s.error());
    if (perfetto)
        if (Status s = perfetto->finish(); !s) return fail(s.error());
    if (perfetto_trace)
        if (Status s = perfetto_trace->finish(); !s) return fail(s.error());
    std::vector<ResultTable> tables;
    for (const auto& r : results) tables.insert(tables.end(), r.tables.begin(), r.tables.end());
    if (!cfg.outputs.text.empty())
        if (Status s = write_pending(pending, cfg.outputs.text,
                                     [&](std::FILE* f) { write_tables(f, tables, TableFormat::text); });
            !s)
            return fail(s.error());
    if (!cfg.outputs.csv.empty())
        if (Status s = write_pending(pending, cfg.outputs.csv,
                                     [&](std::FILE* f) { write_tables(f, tables, TableFormat::csv); });
            !s)
            return fail(s.error());
    if (!cfg.outputs.json.empty()) {
        json doc;
        doc["title"] = escaped(cfg.title, TextTarget::utf8);
        doc["inputs"] = json::array();
        for (const auto& [i, in] : summary.inputs())
            doc["inputs"].push_back({{"name", escaped(in.name, TextTarget::utf8)},
                                     {"path", escaped(in.path, TextTarget::utf8)},
                                     {"cpus", in.cpus},
                                     {"events", in.events},
                                     {"first_ts", in.first_ts},
                                     {"last_ts", in.last_ts}});
        doc["analyses"] = json::object();
        for (const auto& r : results) doc["analyses"][r.name] = r.doc;
        // One pass: the event analyses and outputs share one read of the CPU data.
        doc["reading"] = {{"events", events},
                          {"cpu_data_bytes", read.bytes_total},
                          {"cpu_data_pages", read.pages_total},
                          {"pages_loaded", pages_loaded}};
        if (Status s = write_pending_text(pending, cfg.outputs.json, doc.dump(2) + "\n"); !s)
            return fail(s.error());
    }
    if (!cfg.outputs.html.empty()) {
        progress.stage("html");
        std::string title =
            cfg.title.empty() ? "ringscope run: " + fs::path(path).filename().string() : cfg.title;
        std::vector<sinks::NamedResult> named;
        for (const auto& r : results) named.emplace_back(r.name, r.doc);
        // The viewer's page of the inputs with the results under it: its own pass over the files.
        const json run = {{"title", escaped(cfg.title, TextTarget::utf8)},
                          {"config", escaped(fs::path(path).filename().string(), TextTarget::utf8)}};
        auto page = html_page(ctx, files, sinks::render_results_html(title, summary, named), run.dump());
        if (!page) return fail(page.error());
        if (page->result.coarser)
            std::fprintf(stderr, "%s run: %s: %s\n", ctx.program.c_str(), cfg.outputs.html.c_str(),
                         view::coarser_note(page->result, ViewSession::export_cap()).c_str());
        if (Status s = write_pending(pending, cfg.outputs.html, [&](std::FILE* f) { page->write(f); }); !s)
            return fail(s.error());
    }
    for (sinks::EventSink* s :
         {static_cast<sinks::EventSink*>(sqlite.get()), static_cast<sinks::EventSink*>(perfetto.get())})
        if (s)
            if (Status st = s->commit(); !st) return fail(st.error());
    for (auto& out : pending)
        if (Status s = out->commit(); !s) return fail(s.error());
    progress.finish();
    if (!quiet) {
        std::fprintf(stderr, "%s: %llu events, %zu analyses, %s of CPU data read (%llu of %llu pages)\n",
                     path.c_str(), static_cast<unsigned long long>(summary.total_events()), results.size(),
                     sinks::ProgressBar::bytes_text(read.bytes_total).c_str(),
                     static_cast<unsigned long long>(pages_loaded),
                     static_cast<unsigned long long>(read.pages_total));
        for (const std::string* o :
             {&cfg.outputs.text, &cfg.outputs.json, &cfg.outputs.csv, &cfg.outputs.sqlite,
              &cfg.outputs.perfetto, &cfg.outputs.html, &cfg.outputs.perfetto_trace})
            if (!o->empty()) std::fprintf(stderr, "  wrote %s\n", o->c_str());
    }
    return kExitOk;
}

}  // namespace ringscope::cli
