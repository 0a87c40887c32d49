// `ringscope report [options] [FILE ...]`: prints what `trace-cmd report` 3.4 (or 3.1.6, --compat)
// prints for the same files and options (see docs in framework/engine and framework/output for the pieces),
// plus `--format json|csv` and `--guest-symbols`.
//
// report_options.cpp reads the command line, report_inputs.cpp opens the files, report_info.cpp,
// report_events.cpp and report_slices.cpp print (report_run.hpp says which prints what), and
// report_decoded.cpp prints the inputs plugin decoders read.
#include "framework/cli/report_decoded.hpp"
#include "framework/cli/report_extras.hpp"
#include "framework/cli/report_run.hpp"

namespace ringscope::cli {

int ReportRun::check_report_options() {
    for (const auto& r : o_.report_options) {
        const ReportOption& opt = r.registered->option;
        const std::string name = plugin::report_option_spelling(opt);
        if (!text())
            return fail(name + " prints text: it does not go with --format json or csv", kExitReportUsage);
        if (opt.single_input && o_.inputs.size() > 1)
            return fail(name + " works on a single input file", kExitReportUsage);
    }
    return kExitOk;
}

int ReportRun::run() {
    if (int rc = check_report_options(); rc != kExitOk) return rc;
    reused_ = kept_ && kept_->ready;
    if (!reused_)
        if (auto failure = open_report_inputs(o_, threads(), set_)) return fail(*failure);
    if (auto rc = print_file_info()) return *rc;

    const bool plugins = !o_.no_plugins && !ctx_.no_plugins;
    if (!reused_) {  // resolvers and --align-ts' offsets are set once per opened file
        if (auto failure = add_report_symbols(o_, plugins ? &ctx_.plugins() : nullptr, set_))
            return fail(*failure);
        if (kept_) kept_->ready = true;
    }
    // -T sets each file's filters up in turn (a file before one whose filter fails prints its head)
    // (--pid alone makes a filter too: trace-cmd prints it)
    if (o_.filter_test && (!o_.filters.empty() || !o_.pids.empty())) return print_filter_test();
    if (auto failure = make_report_filters(o_, set_, filters_)) {
        if (failure->code == kExitFilter) failure->code = filter_failure_exit(o_, set_);
        return fail(*failure);
    }
    if (o_.verbose >= kVerboseInfo &&
        !write_stdout(verbose_preamble(static_cast<int>(set_.file(0).reader().file_version()),
                                       plugins ? &ctx_.plugins() : nullptr)))
        return kExitRuntime;
    const int rc = print_events();
    for (size_t i = 0; i < set_.size(); ++i)
        if (const std::string& note = set_.file(i).btf_diagnostic(); !note.empty())
            std::fprintf(stderr, "ringscope: %s\n", note.c_str());
    // Print fmts refused as too deep printed "[FAILED TO PARSE]"; say which and where, once each.
    for (size_t i = 0; i < set_.size(); ++i)
        for (const auto& [event, error] : set_.file(i).formats().too_deep())
            std::fprintf(stderr, "%s: %s: %s\n", set_.file(i).path().c_str(), event.c_str(),
                         error.to_string().c_str());
    return rc;
}

// -T: trace-cmd sets each file's filters up in turn and exits after printing the first file's that
// has any; the files before it print their "cpus=" line (trace-read.c: read_data_info, then
// process_filters). Checked with 3.1.6 (-i a -i b -F f prints "a: cpus=N" and f).
int ReportRun::print_filter_test() {
    PrefixColumn column(set_, o_.multi);
    std::string out;
    for (size_t f = 0; f < set_.size(); ++f) {
        const FileFilters ff = filters_of_input(o_, f);
        if (!ff.filters.empty() || (ff.pids && !o_.pids.empty())) {
            std::string error;
            const std::vector<const EventType*> types = set_.file(f).types();
            auto text =
                filter_test_text(ff.filters, ff.pids ? o_.pids : std::vector<std::string>{}, types, error);
            if (!text) return write_stdout(out) ? fail(error, filter_failure_exit(o_, set_)) : kExitRuntime;
            return write_stdout(out + *text) ? kExitOk : kExitRuntime;
        }
        if (column.shown()) out += column.prefix({f, 0});
        out += "cpus=" + std::to_string(set_.file(f).cpu_count()) + "\n";
        column.add_instances(set_.file(f));
    }
    return write_stdout(out) ? kExitOk : kExitRuntime;
}

int run_report(CliContext& ctx, const std::vector<std::string>& args) {
    ReportOptions o;
    if (int rc = parse_report_cli(ctx, args, o); rc >= 0) return rc;
    if (o.local_plugins) ctx.local_plugins_only = true;
    // Inputs that are not trace.dat go to the plugin decoder that claims them.
    std::vector<std::string> paths;
    for (const auto& in : o.inputs) paths.push_back(in.path);
    if (wants_decoder(ctx, paths, o.input_format)) {
        if (!o.report_options.empty()) {
            std::fprintf(stderr, "%s report: %s works on trace.dat files, not on a plugin decoder's input\n",
                         ctx.program.c_str(),
                         plugin::report_option_spelling(o.report_options[0].registered->option).c_str());
            return kExitReportUsage;
        }
        return report_decoded(ctx, paths, o.input_format,
                              o.format == ReportFormat::json  ? "json"
                              : o.format == ReportFormat::csv ? "csv"
                                                              : "text",
                              o.jobs, *o.compat, o.print_options, o.filters);
    }
    ReportRun run(ctx, std::move(o));
    return run.run();
}

int run_report_to(CliContext& ctx, const std::vector<std::string>& args, std::FILE* out,
                  const ReportStart* start) {
    ReportOptions o;
    if (int rc = parse_report_cli(ctx, args, o); rc >= 0) return rc;
    ReportRun run(ctx, std::move(o), out, start);
    return run.run();
}

}  // namespace ringscope::cli
