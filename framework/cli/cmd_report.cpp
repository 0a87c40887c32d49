// `ringscope report [options] [FILE ...]`: prints what `trace-cmd report` 3.4 (or 3.1.6, --compat)
// prints for the same files and options (see docs in framework/engine and framework/output for the pieces),
// plus
// `--format json|csv` and `--guest-symbols`.
//
// The command line is read the way trace-cmd's getopt_long("+...") reads it: options stop at the
// first word that is not one, the first such word is the input file (extra words are more input
// files, a ringscope extension), short options may be grouped (-IS) and take their argument
// attached or as the next word, long options as --name=value or --name value.
#include <regex.h>

#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <functional>

#include <ringscope/event_hook.hpp>
#include <ringscope/filter.hpp>
#include <ringscope/selection.hpp>
#include <ringscope/text_buffer.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/report_compat.hpp"
#include "framework/cli/report_decoded.hpp"
#include "framework/cli/report_extras.hpp"
#include "framework/engine/event_merger.hpp"
#include "framework/engine/merge_lookahead.hpp"
#include "framework/engine/print_dispatch.hpp"
#include "framework/engine/time_slicer.hpp"
#include "framework/engine/trace_set.hpp"
#include "framework/format/compiled_print.hpp"
#include "framework/output/event_record_writer.hpp"
#include "framework/output/output_buffer.hpp"
#include "framework/output/parallel_line_writer.hpp"
#include "framework/output/report_line_writer.hpp"
#include "framework/output/report_listings.hpp"
#include "framework/output/slice_writer.hpp"
#include "framework/symbols/guest_symbols.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"

namespace ringscope::cli {
namespace {

constexpr int kExitFilter = 22;  // trace-cmd dies with EINVAL on a filter that does not parse
// trace-cmd report's usage() and die() exit(-1): scripts around it see 255 for a bad command line,
// so report's usage errors keep that code (the other ringscope commands use 2).
constexpr int kExitReportUsage = 255;

const char* const kUsage =
    "usage: ringscope report [options] [FILE ...]\n"
    "\n"
    "Prints the events of trace.dat files exactly as `trace-cmd report` 3.4 (or 3.1.6) does.\n"
    "\n"
    "  -i FILE            input file (repeat for several files, merged in time order)\n"
    "  --cpu LIST         only these CPUs (\"0,2\", \"1-3\")\n"
    "  --cpus             list the CPUs that have data\n"
    "  --first-event      with the first event time of each CPU\n"
    "  --last-event       with the last event time of each CPU\n"
    "  -t                 nanosecond timestamps\n"
    "  -R                 raw field values\n"
    "  -r EVENT           print this event's fields raw (regex, repeatable)\n"
    "  -n EVENT           no plugin handler for this event (regex, repeatable)\n"
    "  -F FILTER          event filter (libtraceevent grammar, repeatable)\n"
    "  -v                 the following -F filters exclude\n"
    "  -I, -S             hide events in hard / soft interrupt context\n"
    "  -l                 latency format\n"
    "  -N                 no plugins\n"
    "  -O [PLUGIN:]NAME[=VALUE]  set a plugin's print option (repeatable; no VALUE toggles a\n"
    "                     boolean; `ringscope plugins` lists them, e.g. ftrace:parent)\n"
    "  -e, -f, -P, -E     endianness, functions, printk formats, event list\n"
    "  --stat, --uname, --version\n"
    "  --ts-offset NS, --ts2secs HZ, --ts-diff, --ts-check, --raw-ts, --align-ts, --nodate\n"
    "  --pid PID, --comm COMM, --kallsyms FILE\n"
    "  --from S, --to S, --event EVENT  ringscope's: a time range (the trace's seconds) and events\n"
    "                     ([SYSTEM/]NAME), for every input file\n"
    "  --guest-symbols [GUEST=]FILE   symbols for a guest's addresses (kvm plugin)\n"
    "  --format text|json|csv         output format (default text)\n"
    "  -j N, --jobs N                 format the lines in N threads (default: the cores; same output)\n"
    "  --compat 3.1|3.4               print as this trace-cmd release does (default: RINGSCOPE_COMPAT,\n"
    "                                 else 3.4)\n"
    "  --input-format NAME            read FILE with this plugin decoder (default: probe the file)\n"
    "  --strict                       stop at the first plugin handler that fails (default: report it,\n"
    "                                 print the event with its own format and go on)\n"
    "\n"
    "Options plugins add (`ringscope plugins` lists them):\n";

struct InputSpec {
    std::string path;
    uint64_t ts2secs = 0;
    int64_t ts_offset = 0;
};

enum class Format { text, json, csv };

// A plugin's report option given on the command line (-w, --profile), with its value if it takes one.
struct RequestedOption {
    const plugin::RegisteredReportOption* registered;
    std::string value;
};

// The plugins' report options, loaded only when a word is not one of report's own options.
using ReportOptionSource = std::function<const std::vector<plugin::RegisteredReportOption>&()>;

struct Options {
    std::vector<InputSpec> inputs;
    std::optional<std::string> first_input;  // -i before a second -i
    bool multi = false;
    std::vector<int> cpus;
    std::vector<std::pair<std::string, bool>> filters;  // text, negated
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
    Format format = Format::text;
    std::string input_format;  // --input-format: a plugin decoder's format name ("" = probe)
    bool strict = false;       // --strict: a plugin handler that throws stops the run
    std::vector<RequestedOption> report_options;
    int jobs = 0;                  // -j: formatting threads (0 = the cores)
    std::optional<Compat> compat;  // --compat (else default_compat())
};

// A usage error: one line on stderr, exit 255 (kExitReportUsage).
struct UsageError {
    std::string message;
};

// --cpu: trace-cmd's parse_cpulist (digits, ranges "a-b", separated by ',' or ':').
std::optional<std::string> parse_cpulist(std::string_view s, std::vector<int>& out) {
    size_t i = 0;
    auto skip_digit = [&](std::string_view all) -> std::optional<std::string> {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
            return "invalid character '" + std::string(i < s.size() ? s.substr(i, 1) : "") +
                   "' in cpu string '" + std::string(all) + "'";
        return std::nullopt;
    };
    auto number = [&]() {
        unsigned long v = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
            v = v * 10 + static_cast<unsigned long>(s[i] - '0');
            if (v > 1u << 20) v = 1u << 20;  // far beyond any CPU id; keeps the loop below bounded
            ++i;
        }
        return v;
    };
    do {
        if (auto e = skip_digit(s)) return e;
        unsigned long a = number(), b = a;
        if (i < s.size() && s[i] == '-') {
            ++i;
            if (auto e = skip_digit(s)) return e;
            b = number();
        }
        if (a > b) return std::string("range of cpu numbers must be lower to greater");
        for (; a <= b; ++a) out.push_back(static_cast<int>(a));
        if (i < s.size() && (s[i] == ',' || s[i] == ':')) ++i;
    } while (i < s.size());
    return std::nullopt;
}

// --from, --to, --event: the shared selection's (ringscope/selection.hpp).
void parse_range_option(const std::string& name, const std::string& arg, EventSelection& sel) {
    const std::vector<std::string> words{"--" + name, arg};
    size_t i = 0;
    std::string error;
    if (parse_selection_option(words, i, sel, error) != SelectionParse::ok) throw UsageError{error};
}

uint64_t parse_ull(const std::string& s) {
    return static_cast<uint64_t>(std::atoll(s.c_str()));
}

int parse_jobs(const std::string& s) {
    char* end = nullptr;
    const long n = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end || n < 1 || n > 1024)
        throw UsageError{"-j takes a number of threads (1-1024), not '" + s + "'"};
    return static_cast<int>(n);
}

Options parse_args(const std::vector<std::string>& args, const ReportOptionSource& plugin_options) {
    Options o;
    std::optional<std::string> input_file;
    int64_t tsoffset = 0;
    auto add_input = [&](const std::string& path) { o.inputs.push_back({path, 0, 0}); };

    // Short options that take an argument (from trace-cmd's "+hSIi:H:feGpRr:tPNn:LlEwF:VvTqO:",
    // and ringscope's -j).
    const std::string_view with_arg = "iHrnFOj";
    const std::string_view flags = "hSIfeGpRtPNLlEVvTq";  // -w comes from the sched plugin
    auto handle_short = [&](char c, const std::string& arg) {
        switch (c) {
            case 'h':
                throw UsageError{"help"};
            case 'i':
                if (input_file) {
                    if (!o.multi) add_input(*input_file);
                    o.multi = true;
                    add_input(arg);
                } else {
                    input_file = arg;
                }
                break;
            case 'F':
                o.filters.emplace_back(arg, o.neg);
                break;
            case 'f':
                o.show_funcs = true;
                break;
            case 'I':
                o.no_irqs = true;
                break;
            case 'S':
                o.no_softirqs = true;
                break;
            case 'P':
                o.show_printk = true;
                break;
            case 'N':
                o.no_plugins = true;
                break;
            case 'L':
                o.local_plugins = true;  // only --plugin-dir's and RINGSCOPE_PLUGIN_PATH's plugins
                break;
            case 'n':
                o.nohandler_events.push_back(arg);
                break;
            case 'e':
                o.show_endian = true;
                break;
            case 'p':
                o.show_page_size = true;
                break;
            case 'E':
                o.show_events = true;
                break;
            case 'G':
                o.print_options.push_back("sched:global=1");  // --profile: irqs per CPU, not per task
                break;
            case 'R':
                o.raw = true;
                break;
            case 'r':
                o.raw_events.push_back(arg);
                break;
            case 't':
                o.nsec = true;
                break;
            case 'l':
                o.latency = true;
                break;
            case 'v':
                if (o.neg) throw UsageError{"Only 1 -v can be used"};
                o.neg = true;
                break;
            case 'T':
                o.filter_test = true;
                break;
            case 'V':
                o.verbose = kVerboseInfo;
                break;
            case 'q':
                break;  // quiet: nothing to silence here
            case 'j':
                o.jobs = parse_jobs(arg);
                break;
            case 'H': {
                // trace-cmd prints each hook as it reads it (and crashes on a malformed one).
                std::string warnings;
                auto hook = parse_event_hook(arg, &warnings);
                if (!hook) throw UsageError{"Invalid hook format '" + arg + "'"};
                std::fputs(warnings.c_str(), stderr);
                std::printf("%s\n", event_hook_line(*hook).c_str());
                std::fflush(stdout);
                o.hooks += (o.hooks.empty() ? "" : "\n") + arg;
                break;
            }
            case 'O':
                o.print_options.push_back(arg);
                break;
            default:
                throw UsageError{std::string("invalid option -- '") + c + "'"};
        }
    };

    struct Long {
        std::string name;
        bool arg;
        const plugin::RegisteredReportOption* plugin = nullptr;
    };
    static const Long builtin_longs[] = {
        {"cpu", true},          {"cpus", false},         {"first-event", false}, {"last-event", false},
        {"kallsyms", true},     {"pid", true},           {"comm", true},         {"check-events", false},
        {"nodate", false},      {"stat", false},         {"uname", false},       {"version", false},
        {"ts-offset", true},    {"ts2secs", true},       {"ts-diff", false},     {"ts-check", false},
        {"raw-ts", false},      {"align-ts", false},     {"help", false},        {"filter-test", false},
        {"format", true},       {"guest-symbols", true}, {"events", false},      {"event", true},
        {"input-format", true}, {"strict", false},       {"jobs", true},         {"by-comm", false},
        {"boundary", false},    {"debug", false},        {"compat", true},       {"from", true},
        {"to", true},
    };
    // The plugins' long options join the table (and its prefix matching) when a name is not built in.
    auto long_table = [&](std::string_view name) {
        std::vector<Long> table(std::begin(builtin_longs), std::end(builtin_longs));
        for (const Long& l : table)
            if (l.name == name) return table;
        for (const auto& r : plugin_options())
            if (!r.option.long_name.empty()) table.push_back({r.option.long_name, r.option.takes_value, &r});
        return table;
    };
    auto handle_long = [&](std::string_view name, const std::string& arg) {
        if (name == "cpu") {
            if (auto e = parse_cpulist(arg, o.cpus)) throw UsageError{*e};
        } else if (name == "cpus") {
            o.list_cpus = true;
        } else if (name == "first-event") {
            o.first_event = true;
        } else if (name == "last-event") {
            o.last_event = true;
        } else if (name == "kallsyms") {
            o.kallsyms_file = arg;
        } else if (name == "pid") {
            o.pids.push_back(arg);
        } else if (name == "comm") {
            o.comms.push_back(arg);
        } else if (name == "check-events") {
            o.check_events = true;
        } else if (name == "nodate") {
            o.nodate = true;
        } else if (name == "stat") {
            o.stat = true;
        } else if (name == "uname") {
            o.uname = true;
        } else if (name == "version") {
            o.version = true;
        } else if (name == "ts-offset") {
            // trace-cmd 3.1.6: --ts-offset (after -i) shifts the file of the last -i, but only
            // from the second input file on; the first (or only) file's is lost. Pinned by tests.
            tsoffset = std::atoll(arg.c_str());
            if (!input_file) throw UsageError{"--ts-offset must come after -i"};
            if (o.multi) o.inputs.back().ts_offset = tsoffset;
        } else if (name == "ts2secs") {
            if (o.multi)
                o.inputs.back().ts2secs = parse_ull(arg);
            else
                o.ts2secs = parse_ull(arg);
        } else if (name == "ts-diff") {
            o.ts_diff = true;
        } else if (name == "ts-check") {
            o.ts_check = true;
        } else if (name == "raw-ts") {
            o.raw_ts = true;
        } else if (name == "align-ts") {
            o.align_ts = true;
        } else if (name == "help") {
            throw UsageError{"help"};
        } else if (name == "filter-test") {
            o.filter_test = true;
        } else if (name == "format") {
            if (arg == "text")
                o.format = Format::text;
            else if (arg == "json")
                o.format = Format::json;
            else if (arg == "csv")
                o.format = Format::csv;
            else
                throw UsageError{"--format takes text, json or csv, not '" + arg + "'"};
        } else if (name == "guest-symbols") {
            o.guest_symbols.push_back(arg);
        } else if (name == "input-format") {
            o.input_format = arg;
        } else if (name == "strict") {
            o.strict = true;
        } else if (name == "jobs") {
            o.jobs = parse_jobs(arg);
        } else if (name == "compat") {
            o.compat = parse_compat(arg);
            if (!o.compat) throw UsageError{"--compat takes 3.1 or 3.4, not '" + arg + "'"};
        } else if (name == "by-comm") {
            o.by_comm = true;  // the sched plugin's --profile reads it as a print option
            o.print_options.push_back("sched:by_comm=1");
        } else if (name == "from" || name == "to" || name == "event") {
            parse_range_option(std::string(name), arg, o.range);
        } else {
            throw UsageError{"--" + std::string(name) + " is not supported by ringscope report"};
        }
    };

    size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a.size() < 2 || a[0] != '-') break;                 // "+": the first non-option ends the options
        if (a == "--verbose" || a.starts_with("--verbose=")) {  // an optional argument, as getopt's "::"
            const auto level = parse_verbose_level(a.size() > 9 ? std::string_view(a).substr(10) : "");
            if (!level) throw UsageError{"invalid verbose level " + a.substr(std::min<size_t>(a.size(), 10))};
            o.verbose = *level;
            continue;
        }
        if (a[1] == '-') {
            std::string_view body = std::string_view(a).substr(2);
            std::string_view name = body.substr(0, body.find('='));
            const std::vector<Long> longs = long_table(name);
            const Long* hit = nullptr;
            int prefix_hits = 0;
            for (const Long& l : longs) {
                if (name == l.name) {
                    hit = &l;
                    prefix_hits = 1;
                    break;
                }
                if (l.name.starts_with(name)) {
                    hit = &l;
                    ++prefix_hits;
                }
            }
            if (!hit) throw UsageError{"unrecognized option '" + a + "'"};
            if (prefix_hits > 1) throw UsageError{"option '" + a + "' is ambiguous"};
            std::string arg;
            if (hit->arg) {
                if (body.size() > name.size()) {
                    arg = std::string(body.substr(name.size() + 1));
                } else if (i + 1 < args.size()) {
                    arg = args[++i];
                } else {
                    throw UsageError{"option '--" + std::string(hit->name) + "' requires an argument"};
                }
            } else if (body.size() > name.size()) {
                throw UsageError{"option '--" + std::string(hit->name) + "' doesn't allow an argument"};
            }
            if (hit->plugin)
                o.report_options.push_back({hit->plugin, arg});
            else
                handle_long(hit->name, arg);
            continue;
        }
        for (size_t k = 1; k < a.size(); ++k) {
            const char c = a[k];
            const plugin::RegisteredReportOption* plugin_option = nullptr;
            if (with_arg.find(c) == std::string_view::npos && flags.find(c) == std::string_view::npos) {
                for (const auto& r : plugin_options())
                    if (r.option.short_name == c) plugin_option = &r;
                if (!plugin_option) throw UsageError{std::string("invalid option -- '") + c + "'"};
                if (!plugin_option->option.takes_value) {
                    o.report_options.push_back({plugin_option, {}});
                    continue;
                }
            }
            if (plugin_option || with_arg.find(c) != std::string_view::npos) {
                std::string arg;
                if (k + 1 < a.size()) {
                    arg = a.substr(k + 1);
                } else if (i + 1 < args.size()) {
                    arg = args[++i];
                } else {
                    throw UsageError{std::string("option requires an argument -- '") + c + "'"};
                }
                if (plugin_option)
                    o.report_options.push_back({plugin_option, arg});
                else
                    handle_short(c, arg);
                break;
            }
            handle_short(c, {});
        }
    }
    (void)tsoffset;
    if (!o.hooks.empty()) o.print_options.push_back("sched:hooks=" + o.hooks);
    if (o.by_comm &&
        std::none_of(o.report_options.begin(), o.report_options.end(),
                     [](const RequestedOption& r) { return r.registered->option.long_name == "profile"; }))
        throw UsageError{"--by-comm works with --profile"};
    for (; i < args.size(); ++i) {
        if (!input_file) {
            input_file = args[i];
            continue;
        }
        // More files than trace-cmd takes: read them all, as several -i (ringscope extension).
        if (!o.multi) add_input(*input_file);
        o.multi = true;
        add_input(args[i]);
    }
    if (!o.compat) {
        std::string error;
        o.compat = default_compat(error);
        if (!o.compat) throw UsageError{error};
    }
    if (!input_file) input_file = "trace.dat";
    if (!o.multi) add_input(*input_file);
    if (!o.multi && o.ts2secs) o.inputs.back().ts2secs = o.ts2secs;
    for (auto& in : o.inputs)
        if (!in.ts2secs) in.ts2secs = o.ts2secs;
    return o;
}

// -n / -r: "^PATTERN$", case-insensitive, against the event's name or system (set_event_flags).
class EventPattern {
  public:
    explicit EventPattern(const std::string& pattern) {
        const std::string anchored = "^" + pattern + "$";
        ok_ = regcomp(&re_, anchored.c_str(), REG_ICASE | REG_NOSUB) == 0;
    }
    ~EventPattern() {
        if (ok_) regfree(&re_);
    }
    EventPattern(const EventPattern&) = delete;
    EventPattern& operator=(const EventPattern&) = delete;
    bool ok() const noexcept { return ok_; }
    bool matches(const EventType& t) const {
        return ok_ && (regexec(&re_, t.name.c_str(), 0, nullptr, 0) == 0 ||
                       regexec(&re_, t.system.c_str(), 0, nullptr, 0) == 0);
    }

  private:
    regex_t re_{};
    bool ok_ = false;
};

std::string base_name(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What is known per merged buffer (trace-cmd's handle): its prefix column and its CPU bookkeeping.
struct HandleInfo {
    std::string prefix;
    std::string source;             // --format json/csv: "FILE" or "FILE:INSTANCE"
    std::vector<uint64_t> last_ts;  // --ts-check, by CPU index
};

// Per file, by type id: in_order, the types whose printing may change state (plugin overrides
// and subscribers, -r/-R, libtraceevent's bookkeeping), which only the thread that follows the
// merge may print; direct, those whose info is the compiled print fmt alone (no plugin override,
// -R, -r or report option), printed straight into the output. Filled on the first event of a type,
// so a trace's thousands of unused formats are never parsed. Sized once (type_of() reads 16-bit
// ids below small_id_bound()): other threads may read entries while the owner fills others.
class TypeTables {
  public:
    TypeTables(engine::TraceSet& set, std::span<const std::unique_ptr<engine::PrintDispatch>> dispatch,
               bool compile_direct)
        : set_(set), dispatch_(dispatch), compile_direct_(compile_direct) {
        for (size_t f = 0; f < set.size(); ++f) {
            const size_t n = set.file(f).formats().small_id_bound();
            in_order_.emplace_back(n, 1);
            resolved_.emplace_back(n, 0);
            direct_.emplace_back(n, nullptr);
        }
    }
    void resolve(size_t f, const EventType* t) {
        if (t->id < resolved_[f].size() && !resolved_[f][t->id]) [[unlikely]]
            fill(f, t);
    }
    bool in_order(size_t f, uint32_t id) const noexcept {
        return id >= in_order_[f].size() || in_order_[f][id];
    }
    const format::CompiledPrint* compiled(size_t f, uint32_t id) const noexcept {
        return id < direct_[f].size() ? direct_[f][id] : nullptr;
    }

  private:
    void fill(size_t f, const EventType* t) {
        resolved_[f][t->id] = 1;
        const engine::PrintDispatch& d = *dispatch_[f];
        in_order_[f][t->id] = d.overridden(t->id) || d.raw(t->id) || !d.subscribers(t->id).empty() ||
                              set_.file(f).formats().print_has_side_effects(*t);
        if (compile_direct_ && !d.overridden(t->id) && !d.raw(t->id))
            direct_[f][t->id] = set_.file(f).formats().compiled(*t);
    }

    engine::TraceSet& set_;
    std::span<const std::unique_ptr<engine::PrintDispatch>> dispatch_;
    bool compile_direct_;
    std::vector<std::vector<char>> in_order_, resolved_;
    std::vector<std::vector<const format::CompiledPrint*>> direct_;
};

// The line of an event whose printing changes nothing (TypeTables::in_order is false): by its
// compiled print fmt, else through the file's dispatch. Safe on any thread.
void write_stateless_line(output::ReportLineWriter& w, TextBuffer& info, const format::CompiledPrint* cp,
                          bool swap, engine::PrintDispatch& dispatch, std::string_view prefix,
                          const Event& ev, std::string_view comm, int pid,
                          const output::TimeStyle& time_style, const output::CommonLayout& common) {
    const std::span<const uint8_t> payload = ev.payload();
    if (cp) {
        w.write(prefix, ev, comm, pid, ev.timestamp(), ev.missed_before(), time_style, common, *cp,
                {payload.data(), static_cast<uint32_t>(payload.size()), swap});
        return;
    }
    info.clear();
    dispatch.print_info(ev, info);
    w.write(prefix, ev, comm, pid, ev.timestamp(), ev.missed_before(), time_style, common, info.view());
}

// The same sources with streams of their own, at the start (for another thread).
engine::EventMerger clone_merger(engine::EventMerger& m) {
    engine::EventMerger c;
    for (engine::MergeSource& s : m.sources())
        c.add({s.file, s.file_index, s.buffer, s.global_cpu, s.stream.clone()});
    return c;
}

// Slice size for report -j (ring-buffer bytes of the CPU with the most data per slice); tests set
// RINGSCOPE_SLICE_BYTES to cut small traces into many slices.
uint64_t slice_bytes() {
    constexpr uint64_t kDefault = uint64_t{1} << 20;
    const char* v = std::getenv("RINGSCOPE_SLICE_BYTES");
    if (!v || !*v) return kDefault;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    return *end || n == 0 ? kDefault : n;
}

class ReportRun {
  public:
    ReportRun(CliContext& ctx, Options o, std::FILE* out = stdout, const ReportStart* start = nullptr)
        : ctx_(ctx), o_(std::move(o)), out_(out), start_(start) {}
    int run();

  private:
    int fail(const Error& e) {
        std::fprintf(stderr, "%s report: %s\n", ctx_.program.c_str(), e.to_string().c_str());
        return kExitRuntime;
    }
    int fail(const std::string& msg, int code) {
        std::fprintf(stderr, "%s report: %s\n", ctx_.program.c_str(), msg.c_str());
        return code;
    }
    int check_report_options();
    int open_inputs();
    // -j N, or the cores.
    int threads() const {
        return o_.jobs > 0 ? o_.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    }
    int setup_symbols();
    int setup_filters();
    int list_cpus();
    int print_events();
    output::CommonLayout common_layout(size_t f, const EventType* first);
    // -j N by time slices; true when it printed every event (else MERGER stands where the last
    // slice written stopped, for the serial merge to go on).
    bool print_slices(engine::EventMerger& merger, const std::vector<size_t>& source_handle,
                      const std::vector<HandleInfo>& handles, std::vector<output::CommonLayout>& common,
                      std::vector<char>& common_known, bool compile_direct, const std::vector<char>& swap,
                      const output::ReportStyle& style, output::OutputBuffer& buf, int jobs,
                      uint64_t& unknown);
    // -I / -S: the event ran in a hard / soft interrupt that is to be hidden.
    bool irq_hidden(const Event& ev, const output::CommonLayout& c) const {
        if (!o_.no_irqs && !o_.no_softirqs) return false;
        const uint64_t flags = c.flags_size ? ev.u64(FieldHandle{c.flags_offset, c.flags_size, 0, true}) : 0;
        return (o_.no_irqs && (flags & 0x08)) || (o_.no_softirqs && (flags & 0x10));
    }
    bool write_stdout(const std::string& s) { return std::fwrite(s.data(), 1, s.size(), out_) == s.size(); }

    CliContext& ctx_;
    Options o_;
    std::FILE* out_;            // stdout, or where `view` collects the lines
    const ReportStart* start_;  // `view`'s positions for --from, or none
    engine::TraceSet set_;
    std::vector<FilterSet> filters_;  // per file
    std::vector<std::unique_ptr<EventHandler>> handlers_;
    std::vector<std::string> handler_plugins_;    // the plugin of each handler
    std::vector<EventHandler*> option_handlers_;  // those of report options (-w, --profile)
    bool events_replaced_ = false;                // a report option prints instead of the events
    // One line on stderr for a handler that threw; true when the run must stop (--strict).
    bool report_fault(const EventHandler* h, const Event& ev, const std::string& what);
    std::vector<std::unique_ptr<engine::PrintDispatch>> dispatch_;  // per file
};

int ReportRun::check_report_options() {
    for (const auto& r : o_.report_options) {
        const ReportOption& opt = r.registered->option;
        const std::string name = plugin::report_option_spelling(opt);
        if (o_.format != Format::text)
            return fail(name + " prints text: it does not go with --format json or csv", kExitReportUsage);
        if (opt.single_input && o_.inputs.size() > 1)
            return fail(name + " works on a single input file", kExitReportUsage);
    }
    return kExitOk;
}

int ReportRun::open_inputs() {
    for (const auto& in : o_.inputs) {
        engine::OpenOptions oo;
        oo.raw_ts = o_.raw_ts;
        oo.ts2secs_hz = in.ts2secs;
        oo.ignore_date = o_.nodate;
        oo.ts_offset = in.ts_offset;
        oo.prefetch_kallsyms = threads() > 1;
        oo.threads = threads();
        apply_compat(*o_.compat, oo);
        if (Status st = set_.add_file(in.path, oo); !st) return fail(st.error());
    }
    return kExitOk;
}

int ReportRun::setup_symbols() {
    // Plugin resolvers first; the files' own kallsyms are asked before the shared service anyway.
    if (!o_.no_plugins && !ctx_.no_plugins) {
        for (const auto& r : ctx_.plugins().resolvers()) set_.resolvers().add(r.domain, r.resolver);
    }
    set_.pair_guests();
    for (const auto& arg : o_.guest_symbols) {
        auto g = load_guest_symbols(arg);
        if (!g && g.error().code() == Errc::invalid_argument)
            return fail(g.error().to_string(), kExitReportUsage);
        if (!g) return fail(g.error());
        set_.resolvers().add(g->domain, g->resolver);
    }
    if (!o_.kallsyms_file.empty()) {
        // --kallsyms replaces the functions the files carry.
        auto ks = symbols::KallsymsResolver::load(o_.kallsyms_file);
        if (!ks) return fail(ks.error());
        for (size_t i = 0; i < set_.size(); ++i)
            set_.file(i).own_resolvers().add(std::string(kKernelDomain), *ks);
    }
    return kExitOk;
}

int ReportRun::setup_filters() {
    // --comm names become pids through the saved cmdlines; --pid filters become one -F string.
    // trace-cmd 3.1.6 gives the filters to the first input file only (its filter list is used up
    // there): the other files print unfiltered. Pinned by tests.
    filters_.clear();
    filters_.resize(set_.size());
    for (size_t f = 0; f < set_.size(); ++f) {
        engine::TraceFile& file = set_.file(f);
        FilterSet fs;
        // a filter names events by pattern: every format is parsed for it, so only when one is given
        const bool names_events =
            !o_.range.events.empty() || (f == 0 && (!o_.filters.empty() || !o_.pids.empty()));
        const std::vector<const EventType*> types =
            names_events ? file.types() : std::vector<const EventType*>{};
        for (const auto& e : o_.range.events)
            if (Status st = fs.limit_events(e, types); !st)
                return fail("Error filtering: " + e + "\n" + st.error().to_string(), kExitFilter);
        fs.limit_time(o_.range.from_ns, o_.range.to_ns);
        if (f > 0) {
            if (!fs.empty()) filters_[f] = std::move(fs);
            continue;
        }
        // Numeric pids (and every pid of a --comm) are matched as a set, not as a filter string:
        // a comm shared by thousands of pids would pass the grammar's 1024 tokens.
        std::vector<std::string> pids;
        std::vector<int> pid_set;
        for (const auto& p : o_.pids) {
            char* end = nullptr;
            const long v = std::strtol(p.c_str(), &end, 10);
            if (!p.empty() && !*end && v >= 0 && v <= INT32_MAX)
                pid_set.push_back(static_cast<int>(v));
            else
                pids.push_back(p);
        }
        for (const auto& comm : o_.comms) {
            bool found = false;
            file.comms().for_each([&](int pid, std::string_view name) {
                if (name != comm) return;
                pid_set.push_back(pid);
                found = true;
            });
            if (!found) std::fprintf(stderr, "  comm: %s not in cmdline list\n", comm.c_str());
        }
        fs.add_pids(pid_set);
        std::vector<std::pair<std::string, bool>> all = o_.filters;
        if (!pids.empty()) {
            std::string text = ".*:";
            for (size_t i = 0; i < pids.size(); ++i) {
                const std::string& p = pids[i];
                if (i) text += "||";
                text += "(common_pid==" + p + ")||(pid==" + p + ")||(next_pid==" + p + ")";
            }
            all.insert(all.begin(), {text, false});
        }
        for (const auto& [text, neg] : all) {
            if (Status st = fs.add(text, neg, types); !st) {
                return fail("Error filtering: " + text + "\n" + st.error().to_string(), kExitFilter);
            }
        }
        if (fs.empty()) continue;
        filters_[f] = std::move(fs);
    }
    return kExitOk;
}

int ReportRun::list_cpus() {
    // trace-cmd 3.1.6 --cpus / --first-event / --last-event: the top buffer's CPUs with data.
    std::string out;
    for (size_t f = 0; f < set_.size(); ++f) {
        engine::TraceFile& file = set_.file(f);
        out += "List of CPUs in " + file.path() + " with data:\n";
        auto streams = file.open_streams(0);
        if (!streams) return fail(streams.error());
        const output::TimeStyle ts{file.in_usecs(), file.use_trace_clock()};
        for (auto& s : *streams) {
            const engine::Record* first = s.peek();
            if (!first) {
                if (!s.status()) return fail(s.status().error());
                continue;
            }
            out += "  " + std::to_string(s.cpu());
            TextBuffer t;
            if (o_.first_event) {
                t.clear();
                output::ReportLineWriter::append_time(t, first->ts, o_.nsec, ts);
                out += "\tFirst event:";
                out += t.view();
            }
            if (o_.last_event) {
                s.seek_end();
                const engine::Record* last = s.peek_back();
                if (last) {
                    t.clear();
                    output::ReportLineWriter::append_time(t, last->ts, o_.nsec, ts);
                    out += "\tLast event:";
                    out += t.view();
                }
            }
            out += '\n';
        }
    }
    write_stdout(out);
    return kExitOk;
}

int ReportRun::run() {
    if (int rc = check_report_options(); rc != kExitOk) return rc;
    if (int rc = open_inputs(); rc != kExitOk) return rc;

    // What trace-cmd does per input before the headers matter: these print for the first file only.
    engine::TraceFile& first = set_.file(0);
    std::string out;
    if (o_.show_page_size) {
        out = "file page size is " + std::to_string(first.reader().page_size()) + ", and host page size is " +
              std::to_string(getpagesize()) + "\n";
        return write_stdout(out) ? kExitOk : kExitRuntime;
    }
    if (o_.show_endian) {
        output::append_endian(out, first);
        return write_stdout(out) ? kExitOk : kExitRuntime;
    }
    if (o_.check_events) {
        for (size_t i = 0; i < set_.size(); ++i)
            if (!set_.file(i).format_errors().empty()) return kExitFilter;
        return kExitOk;
    }
    if (o_.show_funcs || o_.show_printk || o_.show_events) {
        if (o_.show_funcs)
            output::append_functions(out, first);
        else if (o_.show_printk)
            output::append_printk(out, first);
        else
            output::append_event_list(out, first);
        return write_stdout(out) ? kExitOk : kExitRuntime;
    }
    if (o_.list_cpus || o_.first_event || o_.last_event) return list_cpus();

    if (int rc = setup_symbols(); rc != kExitOk) return rc;
    if (int rc = setup_filters(); rc != kExitOk) return rc;
    if (o_.filter_test && !o_.filters.empty()) {
        std::string error;
        const std::vector<const EventType*> types = set_.file(0).types();
        auto text = filter_test_text(o_.filters, o_.pids, types, error);
        if (!text) return fail(error, kExitFilter);
        return write_stdout(*text) ? kExitOk : kExitRuntime;
    }
    if (o_.verbose >= kVerboseInfo &&
        !write_stdout(verbose_preamble(static_cast<int>(set_.file(0).reader().file_version()),
                                       o_.no_plugins || ctx_.no_plugins ? nullptr : &ctx_.plugins())))
        return kExitRuntime;
    const int rc = print_events();
    // Print fmts refused as too deep printed "[FAILED TO PARSE]"; say which and where, once each.
    for (size_t i = 0; i < set_.size(); ++i)
        for (const auto& [event, error] : set_.file(i).formats().too_deep())
            std::fprintf(stderr, "%s: %s: %s\n", set_.file(i).path().c_str(), event.c_str(),
                         error.to_string().c_str());
    return rc;
}

bool ReportRun::report_fault(const EventHandler* h, const Event& ev, const std::string& what) {
    std::string plugin = "?";
    for (size_t i = 0; i < handlers_.size(); ++i)
        if (handlers_[i].get() == h) plugin = handler_plugins_[i];
    std::fprintf(stderr, "%s report: plugin %s (handler %s) failed on %s:%s cpu %d ts %llu: %s%s\n",
                 ctx_.program.c_str(), plugin.c_str(), std::string(h->name()).c_str(),
                 std::string(ev.system()).c_str(), std::string(ev.name()).c_str(), ev.cpu(),
                 static_cast<unsigned long long>(ev.timestamp()), what.c_str(),
                 o_.strict ? " (stopping: --strict)" : "");
    return o_.strict;
}

int ReportRun::print_events() {
    const bool info_only = o_.stat || o_.uname || o_.version;
    const bool text = o_.format == Format::text;

    // Plugin handlers (one instance each per run) and the per-file print dispatch.
    if (!info_only && !o_.no_plugins && !ctx_.no_plugins) {
        ctx_.plugins().apply_print_options(with_compat_option(*o_.compat, o_.print_options));
        for (const auto& h : ctx_.plugins().handlers()) {
            try {
                if (auto inst = h.factory()) {
                    handlers_.push_back(std::move(inst));
                    handler_plugins_.push_back(h.plugin);
                }
            } catch (const std::exception& e) {
                std::fprintf(stderr, "%s report: plugin %s: %s\n", ctx_.program.c_str(), h.plugin.c_str(),
                             e.what());
            }
        }
    }
    std::vector<EventHandler*> raw_handlers;
    for (auto& h : handlers_) raw_handlers.push_back(h.get());
    // Report options work with or without -N, as trace-cmd's -w and --profile do.
    if (!info_only) {
        for (const auto& r : o_.report_options) {
            const ReportOption& opt = r.registered->option;
            std::unique_ptr<EventHandler> inst;
            try {
                inst = opt.factory(r.value);
            } catch (const std::exception& e) {
                return fail(plugin::report_option_spelling(opt) + ": " + e.what(), kExitReportUsage);
            }
            if (!inst) continue;
            events_replaced_ = events_replaced_ || opt.replaces_events;
            option_handlers_.push_back(inst.get());
            handlers_.push_back(std::move(inst));
            handler_plugins_.push_back(r.registered->plugin);
        }
    }
    std::vector<std::unique_ptr<EventPattern>> raw_pats, nohandler_pats;
    for (const auto& p : o_.raw_events) raw_pats.push_back(std::make_unique<EventPattern>(p));
    for (const auto& p : o_.nohandler_events) nohandler_pats.push_back(std::make_unique<EventPattern>(p));
    for (const auto& p : raw_pats)
        if (!p->ok()) return fail("-r: not a regular expression", kExitReportUsage);
    for (const auto& p : nohandler_pats)
        if (!p->ok()) return fail("-n: not a regular expression", kExitReportUsage);
    for (size_t f = 0; f < set_.size(); ++f) {
        auto d = std::make_unique<engine::PrintDispatch>(set_.file(f), raw_handlers);
        for (EventHandler* h : option_handlers_) d->add_annotator(h);
        // -r and -n match event names by pattern: only then is every format parsed here
        for (const EventType* t : raw_pats.empty() && nohandler_pats.empty() ? std::vector<const EventType*>{}
                                                                             : set_.file(f).types()) {
            for (const auto& p : nohandler_pats)
                if (p->matches(*t)) d->disable_overrides(t->id);
            for (const auto& p : raw_pats)
                if (p->matches(*t)) d->set_raw(t->id);
        }
        dispatch_.push_back(std::move(d));
    }

    // --align-ts: every buffer moves by the earliest first timestamp of the top buffers.
    if (o_.align_ts && !info_only) {
        if (auto first = set_.first_timestamp())
            for (size_t f = 0; f < set_.size(); ++f)
                set_.file(f).clock().add_offset(-static_cast<int64_t>(*first));
    }

    // The "cpus=N" lines (one per file; the prefix width grows as instances are found), and the
    // informational outputs that replace the events.
    const std::vector<engine::BufferRef> order = set_.buffer_order();
    std::vector<HandleInfo> handles(order.size());
    size_t max_name = 0;
    bool instances = false;
    if (o_.multi)
        for (size_t f = 0; f < set_.size(); ++f)
            max_name = std::max(max_name, base_name(set_.file(f).path()).size());
    auto prefix_for = [&](const engine::BufferRef& ref) {
        std::string name = ref.buffer ? base_name(set_.file(ref.file).buffer_name(ref.buffer))
                                      : (o_.multi ? base_name(set_.file(ref.file).path()) : std::string());
        if (name.empty() && ref.buffer == 0 && !o_.multi) return std::string(max_name, ' ') + "  ";
        std::string p(max_name > name.size() ? max_name - name.size() : 0, ' ');
        return p + name + ": ";
    };
    std::string head;
    for (size_t f = 0; f < set_.size(); ++f) {
        engine::TraceFile& file = set_.file(f);
        if (text) {
            if (o_.multi || instances) head += prefix_for({f, 0});
            head += "cpus=" + std::to_string(file.cpu_count()) + "\n";
        }
        const auto& buffers = file.reader().buffers();
        if (!buffers.empty() && buffers[0].latency) {
            // Latency traces are text: trace-cmd prints it as it is.
            if (o_.multi) return fail("latency traces do not work with multiple inputs", kExitRuntime);
            auto t = file.reader().buffer_text(0);
            if (!t) return fail(t.error());
            head += *t;
            write_stdout(head);
            return kExitOk;
        }
        if (o_.version) {
            output::append_version(head, file);
            continue;
        }
        if (o_.uname) {
            output::append_uname(head, file);
            output::append_version(head, file);
            continue;
        }
        if (o_.stat) {
            head +=
                "\nKernel buffer statistics:\n"
                "  Note: \"entries\" are the entries left in the kernel ring buffer and are not\n"
                "        recorded in the trace data. They should all be zero.\n\n";
            output::append_stat(head, file);
            continue;
        }
        // This file's instances join the prefix column from here on.
        size_t n_inst = 0;
        for (size_t b = 1; b < buffers.size(); ++b) {
            if (buffers[b].latency) continue;
            ++n_inst;
            max_name = std::max(max_name, base_name(buffers[b].name).size());
        }
        instances = n_inst > 0;
    }
    if (text && !write_stdout(head)) return kExitRuntime;
    if (info_only) return kExitOk;
    for (size_t h = 0; h < order.size(); ++h) {
        if (o_.multi || instances) handles[h].prefix = prefix_for(order[h]);
        const engine::TraceFile& hf = set_.file(order[h].file);
        handles[h].source =
            hf.path() + (order[h].buffer ? ":" + hf.buffer_name(order[h].buffer) : std::string());
        handles[h].last_ts.assign(static_cast<size_t>(std::max(1, set_.file(order[h].file).cpu_count())), 0);
    }

    // trace-cmd 3.1.6 applies --cpu to the first buffer it reads only; the other buffers and files
    // then print nothing. Pinned by tests.
    engine::EventMerger merger;
    const std::span<const engine::BufferRef> merged =
        o_.cpus.empty() ? std::span<const engine::BufferRef>(order)
                        : std::span<const engine::BufferRef>(order).first(1);
    if (Status st = set_.build_merger(merged, o_.cpus, merger, threads()); !st) return fail(st.error());
    // `view`'s positions: the records skipped are before --from, which the filter drops unseen (no
    // handler, subscriber or printer sees them). Not with --cpu and handlers: their look-ahead
    // reads hidden streams from the start; not with --align-ts: the index's times are not aligned.
    const bool seek = start_ && start_->position && o_.range.from_ns != 0 && !o_.align_ts &&
                      (o_.cpus.empty() || handlers_.empty());
    if (seek)
        for (auto& s : merger.sources())
            if (s.buffer == 0)
                if (auto at = start_->position(s.file_index, s.stream.cpu()))
                    engine::seek_stream_to(s.stream, *at);
    const bool stop_past_to = seek && start_->stop_past_to;
    // Which handle each merge source belongs to.
    std::vector<size_t> source_handle;
    for (const auto& s : merger.sources()) {
        for (size_t h = 0; h < order.size(); ++h)
            if (order[h].file == s.file_index && order[h].buffer == s.buffer) source_handle.push_back(h);
    }

    // Common field layout per file for -l and -I/-S, from the file's first event.
    std::vector<output::CommonLayout> common(set_.size());
    std::vector<char> common_known(set_.size());

    std::fflush(out_);
    output::OutputBuffer buf(out_);
    output::ReportStyle style{o_.latency, o_.raw, o_.nsec, o_.ts_diff};
    apply_compat(*o_.compat, style);
    output::ReportLineWriter lines(buf, style);
    output::EventRecordWriter records(
        buf, o_.format == Format::json ? output::RecordFormat::json : output::RecordFormat::csv);
    if (!text) records.begin();
    for (auto& h : handlers_) h->begin(set_.file(0));

    // -j N: lines are formatted by N threads (N - 1 workers and this one), except those of event
    // types whose printing may change state (plugin overrides and subscribers, -r/-R,
    // libtraceevent's bookkeeping): this thread prints those in merge order and hands them to the
    // batches as finished lines, so the output stays the serial one. Workers read none of the state
    // such printing changes (the comm is taken here). --ts-diff, --ts-check and json/csv keep one thread.
    const int jobs = threads();
    // Report options (-w, --profile) see every line in order: they keep one thread too.
    const bool parallel =
        jobs > 1 && text && !o_.ts_diff && !o_.ts_check && !o_.raw && option_handlers_.empty();
    const bool compile_direct = text && !o_.raw && option_handlers_.empty();
    // Filled by this thread, before any line of a type goes to a worker.
    // On the heap, with what the workers read below: not among this thread's locals.
    const auto types_owner = std::make_unique<TypeTables>(set_, dispatch_, compile_direct);
    TypeTables& types = *types_owner;
    std::vector<char> swap(set_.size()), filtered(set_.size());
    for (size_t f = 0; f < set_.size(); ++f) {
        swap[f] = set_.file(f).formats().swap();
        filtered[f] = !filters_[f].empty();
    }

    uint64_t unknown = 0;
    const bool sliceable = parallel && handlers_.empty() && raw_pats.empty() &&
                           std::none_of(filtered.begin(), filtered.end(), [](char c) { return c != 0; });
    bool sliced_to_end = false;
    if (sliceable) {
        sliced_to_end = print_slices(merger, source_handle, handles, common, common_known, compile_direct,
                                     swap, style, buf, jobs, unknown);
    }

    std::unique_ptr<output::ParallelLineWriter> workers;
    if (parallel && !sliced_to_end) {
        // The closure holds what the workers read, by value (pointers to heap data): read through
        // references, this thread's locals, written per event, share cache lines with what the
        // workers read (report_decoded, which does the same, used 20-30% less CPU with -j 2).
        std::vector<engine::TraceFile*> files;
        std::vector<engine::PrintDispatch*> dispatch;
        for (size_t f = 0; f < set_.size(); ++f) {
            files.push_back(&set_.file(f));
            dispatch.push_back(dispatch_[f].get());
        }
        workers = std::make_unique<output::ParallelLineWriter>(
            buf, jobs,
            [style, files, dispatch, swap, types = &types, order = order.data(), handles = handles.data(),
             common = common.data()](const output::LineBatch& batch,
                                     std::span<const output::LineJob> batch_jobs,
                                     output::OutputBuffer& text) {
                output::ReportLineWriter batch_lines(text, style);
                TextBuffer batch_info;
                for (const output::LineJob& j : batch_jobs) {
                    const size_t h = j.source;
                    const size_t fi = order[h].file;
                    engine::TraceFile& file = *files[fi];
                    const auto payload = batch.payload(j);
                    Event ev(j.type, &file, payload, j.ts, j.cpu, j.missed);
                    const output::TimeStyle time_style{file.in_usecs(), file.use_trace_clock()};
                    write_stateless_line(batch_lines, batch_info, types->compiled(fi, j.type->id),
                                         swap[fi] != 0, *dispatch[fi], handles[h].prefix, ev, j.comm, j.pid,
                                         time_style, common[fi]);
                }
            });
    }
    // The workers also decompress the next chunks of each CPU, off this (the merging) thread.
    if (workers) merger.decompress_ahead(workers->task_runner());
    // With workers, the lines this thread prints itself (in order) go into the batches as text.
    output::OutputBuffer ordered_text;
    output::ReportLineWriter ordered_lines(ordered_text, style);
    // Output written so far, the batches included, before a message on stderr.
    auto flush_all = [&] {
        if (workers) workers->drain();
        buf.flush();
    };

    TextBuffer info;
    const engine::Record* rec = nullptr;
    engine::MergeSource* src = nullptr;
    // Printers may look at the next record of the buffer and take it (function_graph's leaves).
    engine::MergeLookahead lookahead(merger, dispatch_);
    if (!o_.cpus.empty() && !handlers_.empty() && !order.empty())
        if (Status st = lookahead.add_hidden(set_, order.front(), o_.cpus, 1); !st) return fail(st.error());
    while (merger.next(rec, src)) {
        if (stop_past_to && rec->ts > o_.range.to_ns) break;
        engine::TraceFile& file = *src->file;
        const size_t fi = src->file_index;
        const EventType* type = file.type_of(rec->data, rec->size);
        if (!type) {
            ++unknown;
            continue;
        }
        if (dispatch_[fi]->overridden(type->id)) rec = lookahead.enter(*src, rec);
        if (!common_known[fi]) [[unlikely]] {
            common[fi] = common_layout(fi, type);
            common_known[fi] = 1;
        }
        types.resolve(fi, type);
        Event ev(type, &file, {rec->data, rec->size}, rec->ts, rec->cpu, rec->missed, rec->trailing);
        if (irq_hidden(ev, common[fi])) continue;
        if (filtered[fi] && !filters_[fi].accept(ev)) continue;
        const size_t h = source_handle[merger.index_of(src)];
        HandleInfo& hi = handles[h];
        const size_t ci = static_cast<size_t>(src->stream.cpu_index());
        if (o_.ts_check && ci < hi.last_ts.size() && hi.last_ts[ci] > rec->ts) {
            buf.flush();
            std::fprintf(stderr, "  WARNING: Record on cpu %d went backwards: %llu to %llu delta: -%llu\n",
                         rec->cpu, static_cast<unsigned long long>(hi.last_ts[ci]),
                         static_cast<unsigned long long>(rec->ts),
                         static_cast<unsigned long long>(hi.last_ts[ci] - rec->ts));
        }
        if (ci < hi.last_ts.size()) hi.last_ts[ci] = rec->ts;

        const int pid = ev.pid();
        // The comm is taken before the info is printed: a plugin that registers names while
        // printing affects the following lines, as with trace-cmd.
        const std::string_view comm = file.comm(pid);
        if (workers && !types.in_order(fi, type->id)) {
            workers->add({type, static_cast<uint32_t>(h), 0, 0, rec->ts, rec->cpu, pid, rec->missed, comm},
                         {rec->data, rec->size});
            if (buf.failed()) break;
            continue;
        }
        engine::PrintDispatch& d = *dispatch_[fi];
        output::ReportLineWriter& line_writer = workers ? ordered_lines : lines;
        const output::TimeStyle time_style{file.in_usecs(), file.use_trace_clock()};
        const format::CompiledPrint* cp = types.compiled(fi, type->id);
        if (cp && !events_replaced_) {
            line_writer.write(hi.prefix, ev, comm, pid, rec->ts, rec->missed, time_style, common[fi], *cp,
                              {rec->data, rec->size, swap[fi] != 0});
        } else if (!events_replaced_) {
            info.clear();
            if (o_.raw && text)
                file.formats().print_raw(ev, info);
            else
                d.print_info(ev, info);
            if (text) d.annotate(ev, info);
            if (auto fault = d.take_fault()) {
                flush_all();
                if (report_fault(fault->handler, ev, fault->what)) return kExitRuntime;
            }
            if (text)
                line_writer.write(hi.prefix, ev, comm, pid, rec->ts, rec->missed, time_style, common[fi],
                                  info.view());
            else
                records.write(hi.source, ev, comm, pid, rec->ts, rec->missed, info.view());
        }
        if (workers && !ordered_text.view().empty()) {
            workers->add_line(ordered_text.view());
            ordered_text.clear();
        }
        for (EventHandler* eh : d.subscribers(type->id)) {
            try {
                eh->on_event(ev);
            } catch (const std::exception& e) {
                flush_all();
                if (report_fault(eh, ev, e.what())) return kExitRuntime;
            } catch (...) {
                flush_all();
                if (report_fault(eh, ev, "unknown exception")) return kExitRuntime;
            }
        }
        if (buf.failed()) break;
    }
    if (workers) workers->drain();
    for (EventHandler* h : option_handlers_) {
        if (buf.failed()) break;
        info.clear();
        try {
            h->report_summary(info);
        } catch (const std::exception& e) {
            buf.flush();
            std::fprintf(stderr, "%s report: handler %s failed in its summary: %s\n", ctx_.program.c_str(),
                         std::string(h->name()).c_str(), e.what());
            return kExitRuntime;
        }
        buf.append(info.view());
    }
    buf.flush();
    if (buf.failed()) {
        if (buf.error_number() == EPIPE) return kExitOk;
        return fail(Error(Errc::io, std::string("write error: ") + std::strerror(buf.error_number())));
    }
    if (unknown)
        std::fprintf(stderr, "%s report: %llu records with an event id that has no format were skipped\n",
                     ctx_.program.c_str(), static_cast<unsigned long long>(unknown));
    if (Status st = merger.status(); !st) return fail(st.error());
    return kExitOk;
}

// The layout of the common fields (every format has the same; one without them sends the look-up
// through all of them).
output::CommonLayout ReportRun::common_layout(size_t f, const EventType* first) {
    output::CommonLayout common;
    auto layout_of = [&](const EventType* t) {
        const FieldInfo* fl = t->find_field("common_flags");
        const FieldInfo* pc = t->find_field("common_preempt_count");
        if (fl) common = {fl->offset, fl->size, pc ? pc->offset : 0, pc ? pc->size : 0};
        return fl != nullptr;
    };
    if (layout_of(first)) return common;
    for (const EventType* t : set_.file(f).types())
        if (layout_of(t)) break;
    return common;
}

// Where no line's printing changes state (no plugin handler, report option, -r or filter), JOBS
// threads merge and format contiguous time ranges of the trace, each with its own streams, and this
// thread writes their text in order (engine/time_slicer.hpp says why that is the serial output).
// The first slice that is not exact (a CPU going back in time across a bound, a read error, an
// event type whose printing has side effects, a different common-field layout) and every later one
// are dropped: the slices written before it are exact on their own, and the serial merge goes on
// from where the last of them stopped, so the output, the errors and the exit code are those of
// one thread.
bool ReportRun::print_slices(engine::EventMerger& merger, const std::vector<size_t>& source_handle,
                             const std::vector<HandleInfo>& handles,
                             std::vector<output::CommonLayout>& common, std::vector<char>& common_known,
                             bool compile_direct, const std::vector<char>& swap,
                             const output::ReportStyle& style, output::OutputBuffer& buf, int jobs,
                             uint64_t& unknown) {
    // The comm tables sort themselves on their first look-up: done here, before the threads read
    // them. Nothing registers names in this mode (no plugin handler), so it changes no name.
    for (size_t f = 0; f < set_.size(); ++f) (void)set_.file(f).comm(1);
    // A cache line of its own: each thread writes its info buffer for every line.
    struct alignas(64) Worker {
        std::unique_ptr<engine::SliceReader> reader;
        std::unique_ptr<TypeTables> types;
        TextBuffer info;
    };
    std::vector<Worker> workers(static_cast<size_t>(jobs));
    std::vector<engine::EventMerger> own(workers.size());
    for (engine::EventMerger& m : own) m = clone_merger(merger);
    engine::share_slice_chunks(own, jobs);
    // Cut with streams of its own: a probe that fails leaves its stream failed, and the serial
    // merger's must stay untouched for what follows, the workers' able to print the slices before.
    engine::EventMerger probes = clone_merger(merger);
    const engine::SlicePlan plan = engine::SlicePlan::make(probes.sources(), slice_bytes(), jobs);
    for (size_t w = 0; w < workers.size(); ++w) {
        workers[w].reader = std::make_unique<engine::SliceReader>(std::move(own[w]), plan);
        workers[w].types = std::make_unique<TypeTables>(set_, dispatch_, compile_direct);
    }
    // What a slice found besides its text, for the checks made in slice order (a cache line of its
    // own: the slots are filled by different threads).
    struct alignas(64) SliceResult {
        std::vector<uint64_t> starts, ends;
        std::vector<std::optional<output::CommonLayout>> common;  // from its first event of each file
        uint64_t unknown = 0;
    };
    // Where the merge stands: at the start, then where the last slice written stopped.
    std::vector<uint64_t> at;
    for (auto& s : merger.sources()) {
        const engine::Record* r = s.stream.peek();
        at.push_back(r ? r->offset : engine::kStreamEnd);
    }

    // A slice's text is about twice its ring data (report lines are longer than the records); a
    // slice holds the plan's bytes on average and at most that much of each CPU. Room never
    // written costs no memory, while a buffer that grows copies what it holds into new pages.
    const uint64_t sources = std::max<size_t>(merger.sources().size(), 1);
    output::SliceWriter writer(
        jobs, static_cast<size_t>(std::min<uint64_t>(std::max<uint64_t>(4, 3 * sources) * slice_bytes(),
                                                     uint64_t{256} << 20)));
    std::vector<SliceResult> results(writer.in_flight());
    auto produce = [&](size_t wi, size_t slot, size_t index, output::OutputBuffer& out) {
        Worker& w = workers[wi];
        SliceResult& res = results[slot];
        res.unknown = 0;
        res.common.assign(set_.size(), std::nullopt);
        engine::SliceReader& reader = *w.reader;
        if (!reader.begin(index)) return false;
        res.starts = reader.starts();
        output::ReportLineWriter lines(out, style);
        const engine::Record* rec = nullptr;
        engine::MergeSource* src = nullptr;
        uint32_t n = 0;
        while (reader.next(rec, src)) {
            if ((++n & 4095) == 0 && writer.cancelled()) return false;
            engine::TraceFile& file = *src->file;
            const size_t fi = src->file_index;
            const EventType* type = file.type_of(rec->data, rec->size);
            if (!type) {
                ++res.unknown;
                continue;
            }
            if (!res.common[fi]) res.common[fi] = common_layout(fi, type);
            w.types->resolve(fi, type);
            // Its printing may change what later lines print: only the serial merge prints it.
            if (w.types->in_order(fi, type->id)) return false;
            Event ev(type, &file, {rec->data, rec->size}, rec->ts, rec->cpu, rec->missed, rec->trailing);
            if (irq_hidden(ev, *res.common[fi])) continue;
            const int pid = ev.pid();
            const size_t h = source_handle[reader.index_of(src)];
            write_stateless_line(lines, w.info, w.types->compiled(fi, type->id), swap[fi] != 0,
                                 *dispatch_[fi], handles[h].prefix, ev, file.comm(pid), pid,
                                 {file.in_usecs(), file.use_trace_clock()}, *res.common[fi]);
        }
        res.ends = reader.ends();
        return reader.exact();
    };
    auto accept = [&](size_t slot, size_t) {
        const SliceResult& res = results[slot];
        if (res.starts != at) return false;  // not contiguous with the slice before
        for (size_t f = 0; f < set_.size(); ++f)
            if (res.common[f] && common_known[f] && !(*res.common[f] == common[f])) return false;
        for (size_t f = 0; f < set_.size(); ++f) {
            if (!res.common[f] || common_known[f]) continue;
            common[f] = *res.common[f];  // the first slice with an event of the file: the serial choice
            common_known[f] = 1;
        }
        unknown += res.unknown;
        at = res.ends;
        return true;
    };
    const size_t written = writer.run(plan.count(), buf, produce, accept);
    // For tests and benchmarks: how much of the trace the slices printed.
    if (std::getenv("RINGSCOPE_SLICE_STATS"))
        std::fprintf(stderr, "%s report: %zu of %zu slices\n", ctx_.program.c_str(), written, plan.count());
    for (size_t k = 0; k < at.size(); ++k) engine::seek_stream_to(merger.sources()[k].stream, at[k]);
    return std::all_of(at.begin(), at.end(), [](uint64_t a) { return a == engine::kStreamEnd; });
}

// Parses report's ARGS into O; -1 when they parse, else the exit code (--help printed, or the
// usage error).
int parse_report_cli(CliContext& ctx, const std::vector<std::string>& args, Options& o) {
    const ReportOptionSource plugin_options = [&ctx]() -> const std::vector<plugin::RegisteredReportOption>& {
        return ctx.plugins().report_options();
    };
    try {
        o = parse_args(args, plugin_options);
    } catch (const UsageError& e) {
        if (e.message == "help") {
            std::fputs(kUsage, stdout);
            for (const auto& r : plugin_options()) {
                std::printf("  %-18s %s (plugin %s)\n", plugin::report_option_spelling(r.option).c_str(),
                            r.option.doc.c_str(), r.plugin.c_str());
            }
            print_dash_o_help(stdout, ctx.plugins());
            std::fputs("\n", stdout);
            std::fputs(selection_usage(), stdout);
            return kExitOk;
        }
        std::fprintf(stderr, "%s report: %s\n", ctx.program.c_str(), e.message.c_str());
        return kExitReportUsage;
    }
    if (o.no_plugins) ctx.no_plugins = true;
    return -1;
}

}  // namespace

int run_report(CliContext& ctx, const std::vector<std::string>& args) {
    Options o;
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
                              o.format == Format::json  ? "json"
                              : o.format == Format::csv ? "csv"
                                                        : "text",
                              o.jobs);
    }
    ReportRun run(ctx, std::move(o));
    return run.run();
}

int run_report_to(CliContext& ctx, const std::vector<std::string>& args, std::FILE* out,
                  const ReportStart* start) {
    Options o;
    if (int rc = parse_report_cli(ctx, args, o); rc >= 0) return rc;
    ReportRun run(ctx, std::move(o), out, start);
    return run.run();
}

}  // namespace ringscope::cli
