// `ringscope report`'s command line: what it asks for (ReportOptions) and how it is read.
//
// The command line is read the way trace-cmd's getopt_long("+...") reads it: options stop at the
// first word that is not one, the first such word is the input file (extra words are more input
// files, a ringscope extension), short options may be grouped (-IS) and take their argument
// attached or as the next word, long options as --name=value or --name value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ringscope/selection.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/report_compat.hpp"
#include "framework/plugin/plugin_host.hpp"

namespace ringscope::cli {

inline constexpr int kExitFilter = 22;  // trace-cmd dies with EINVAL on a filter that does not parse
// trace-cmd report's usage() and die() exit(-1): scripts around it see 255 for a bad command line,
// so report's usage errors keep that code (the other ringscope commands use 2).
inline constexpr int kExitReportUsage = 255;
// A summary that cannot be made (trace-cmd die()s in its profile: exit 255).
inline constexpr int kExitReportSummary = 255;
// trace-cmd's die() with errno 0: exit(-1).
inline constexpr int kExitDieNoErrno = 255;

struct ReportInput {
    std::string path;
    uint64_t ts2secs = 0;
    int64_t ts_offset = 0;
};

enum class ReportFormat { text, json, csv };

// A plugin's report option given on the command line (-w, --profile), with its value if it takes one.
struct RequestedOption {
    const plugin::RegisteredReportOption* registered;
    std::string value;
};

struct ReportOptions {
    std::vector<ReportInput> inputs;
    bool multi = false;  // several inputs: each line gets the file's name
    std::vector<int> cpus;
    std::vector<std::pair<std::string, bool>> filters;  // text, negated
    std::vector<int> filter_inputs;  // per filter: the index of the -i it follows (-1: before any -i)
    std::vector<std::string> pids, comms;
    EventSelection range;  // --from/--to, --event: ringscope's, for every input file
    std::vector<std::string> raw_events, nohandler_events;
    std::vector<std::string> print_options;  // -O [PLUGIN:]NAME[=VALUE]
    std::vector<std::string> guest_symbols;
    std::string kallsyms_file;
    uint64_t ts2secs = 0;
    bool neg = false;
    bool nsec = false, raw = false, latency = false, no_irqs = false, no_softirqs = false;
    bool show_endian = false, show_events = false, show_funcs = false, show_printk = false;
    bool show_page_size = false, check_events = false, filter_test = false;
    bool no_plugins = false, stat = false, uname = false, version = false;
    bool ts_diff = false, ts_check = false, raw_ts = false, align_ts = false, nodate = false;
    bool list_cpus = false, first_event = false, last_event = false;
    bool local_plugins = false;  // -L
    bool by_comm = false;        // --by-comm
    std::string hooks;           // -H, one per line (the sched plugin's --profile reads them)
    int verbose = -1;            // -V, --verbose[=LEVEL]: libtracefs's log level (-1: not given)
    ReportFormat format = ReportFormat::text;
    std::string input_format;  // --input-format: a plugin decoder's format name ("" = probe)
    bool strict = false;       // --strict: a plugin handler that throws stops the run
    std::vector<RequestedOption> report_options;
    int jobs = 0;                  // -j: formatting threads (0 = the cores)
    std::optional<Compat> compat;  // --compat (else default_compat())
};

// Parses report's ARGS into O; -1 when they parse, else the exit code (--help printed, or the
// usage error printed as one line).
int parse_report_cli(CliContext& ctx, const std::vector<std::string>& args, ReportOptions& o);

}  // namespace ringscope::cli
