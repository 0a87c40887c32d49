#include "framework/cli/capture_args.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ringscope::cli {

namespace {

const char* const kUsage[] = {
    // record
    "usage: ringscope record [OPTIONS] [--] [COMMAND ...]\n\n"
    "Records into a trace.dat (version 7), one reader per CPU, until COMMAND exits, or Ctrl-C / SIGTERM /\n"
    "SIGHUP without one. Options as trace-cmd record's (man trace-cmd-record). Every tracefs change is\n"
    "journaled first and put back at the end, on a signal, or (after a SIGKILL) by the next command.\n\n",
    // start
    "usage: ringscope start [OPTIONS]\n\n"
    "Sets tracing up as record does and leaves it running (read it with show, extract; stop, reset).\n"
    "`ringscope reset --restore` puts back what start changed.\n\n",
    // stream
    "usage: ringscope stream [OPTIONS] [--] [COMMAND ...]\n\n"
    "Prints events as they happen, as `ringscope report` prints them, until COMMAND exits, a signal,\n"
    "or stdout closes. The tracing state is restored at the end.\n\n",
};

constexpr const char* kOptions =
    "  -e EVENT        event, SYSTEM, SYSTEM:EVENT or all (globs allowed); -a: all events and formats\n"
    "  -f FILTER       filter of the -e before it (written to the event's filter file)\n"
    "  -R TRIGGER      a trigger of the -e before it (its trigger file; after -v: the trigger only)\n"
    "  -v              the -e options after it are left out\n"
    "  -i              ignore -e that match no event\n"
    "  -p TRACER       tracer (function, function_graph, ... where the kernel allows it)\n"
    "  -l/-n/-g FUNC   set_ftrace_filter / set_ftrace_notrace / set_graph_function\n"
    "  -P PID[,PID]    only these pids (set_event_pid); -c: their children too (event-fork)\n"
    "  -F              only COMMAND (and with -c its children)\n"
    "  -T              a stack trace with each event (options/stacktrace)\n"
    "  -O [no]OPTION   a trace option (ringscope list -o); -d: nofunction-trace\n"
    "  -b KB           per-CPU ring buffer size;  -C CLOCK  trace clock;  -M CPUMASK  CPUs traced (hex, -1)\n"
    "  -B NAME         an instance: made and removed at the end, or one that exists, its settings put back;\n"
    "                  the options after it are its own (up to the next -B), those before any -B the top\n"
    "                  buffer's (not recorded when it has no event or tracer)\n"
    "  --max-graph-depth N   function_graph depth\n"
    "  -k              leave the tracing state as set at the end\n";
constexpr const char* kRecordOptions =
    "  -o FILE         output (trace.dat);  --compression none|zlib|zstd (zstd)\n"
    "  --file-version 6|7  the trace.dat version (7; 6 is never compressed)\n"
    "  -m KB           keep at most about KB of data per CPU (the newest)\n"
    "  -s USECS        readers wake up every USECS instead of at the buffer's watermark\n"
    "  -r PRIO         readers at SCHED_FIFO priority PRIO\n"
    "  -q, --quiet     no summary;  --date  wall-clock offset;  --tsc2nsec  x86-tsc with its ns conversion\n"
    "  --no-filter     keep the readers' own events (left out by default)\n"
    "  --recover FILE  (alone) save FILE of a record that was killed, from FILE.head and FILE.cpuN\n";

// Options taking a value, and the flags (trace-cmd's letters).
bool takes_value(char c) {
    return std::strchr("efpCoOsrglnPbBmMR", c) != nullptr;
}
bool is_flag(char c) {
    return std::strchr("aFcdDvTkiqhtN", c) != nullptr;
}

struct Parser {
    CliContext& ctx;
    CaptureCommand which;
    capture::RecordOptions& o;
    bool negate = false, have_output = false, after_setup = false;
    std::string name;

    // The buffer the options apply to: the top one until the first -B, then the last -B's.
    capture::TraceSetup& current() { return o.instances.empty() ? o.setup : o.instances.back(); }

    int usage_error(const std::string& why) {
        ctx.error(name + ": " + why + " (see ringscope " + name + " --help)");
        return kExitUsage;
    }
    bool number(const std::string& v, long& out) {
        char* end = nullptr;
        out = std::strtol(v.c_str(), &end, 10);
        return !v.empty() && end && *end == 0;
    }
    int unsupported(char c) { return usage_error(std::string("-") + c + " is not supported by ringscope"); }
    int option(char c, const std::string& v);
    int event_option(char c, const std::string& v);
    int tracer_option(char c, const std::string& v);
    int buffer_option(char c, const std::string& v);
    int run_option(char c, const std::string& v);
    int long_option(const std::string& key, const std::string* value, const std::vector<std::string>& args,
                    size_t& i);
};

// -e -a -f -R -v -i: which events, their filters and triggers.
int Parser::event_option(char c, const std::string& v) {
    capture::TraceSetup& s = current();
    switch (c) {
        case 'e':
            s.events.push_back({v, "", negate, {}});
            break;
        case 'a':
            s.events.push_back({"all", "", false, {}});
            o.all_formats = true;
            break;
        case 'f': {
            if (s.events.empty()) return usage_error("filter must come after event");
            std::string& f = s.events.back().filter;
            f = f.empty() ? "(" + v + ")" : f + "&&(" + v + ")";
            break;
        }
        case 'R':
            if (s.events.empty()) return usage_error("trigger must come after event");
            s.events.back().triggers.push_back(v);
            break;
        case 'v':
            negate = true;
            break;
        case 'i':
            s.ignore_missing = true;
            break;
        default:
            return unsupported(c);
    }
    return -1;
}

// -p -l -n -g -T -O -d -D: the tracer, its function filters and the trace options.
int Parser::tracer_option(char c, const std::string& v) {
    capture::TraceSetup& s = current();
    switch (c) {
        case 'p':
            if (!s.tracer.empty()) return usage_error("only one plugin allowed");
            s.tracer = v;
            break;
        case 'l':
            s.ftrace_filter.push_back(v);
            break;
        case 'n':
            s.ftrace_notrace.push_back(v);
            break;
        case 'g':
            s.graph_functions.push_back(v);
            break;
        case 'T':
            s.options.push_back("stacktrace");
            break;
        case 'O':
            s.options.push_back(v);
            break;
        case 'd':
        case 'D':
            s.options.push_back("nofunction-trace");
            break;
        default:
            return unsupported(c);
    }
    return -1;
}

// -P -c -F -C -M -b -B: whose events, on which CPUs, in which buffer of what size.
int Parser::buffer_option(char c, const std::string& v) {
    capture::TraceSetup& s = current();
    long n = 0;
    switch (c) {
        case 'P': {
            size_t pos = 0;
            while (pos <= v.size()) {
                size_t comma = v.find(',', pos);
                if (comma == std::string::npos) comma = v.size();
                if (!number(v.substr(pos, comma - pos), n) || n <= 0)
                    return usage_error("bad pid in -P " + v);
                s.pids.push_back(static_cast<int>(n));
                pos = comma + 1;
            }
            break;
        }
        case 'c':
            s.children = true;
            break;
        case 'F':
            o.filter_task = true;
            break;
        case 'C':
            s.clock = v;
            break;
        case 'M':
            s.cpumask = v;
            break;
        case 'b':
            if (!number(v, n) || n <= 0) return usage_error("bad buffer size -b " + v);
            s.buffer_kb = static_cast<uint64_t>(n);
            break;
        case 'B': {
            // trace-cmd's order: what follows -B NAME is that instance's, up to the next -B.
            if (v.empty() || v.find('/') != std::string::npos || v == "." || v == "..")
                return usage_error("bad instance name '" + v + "'");
            for (const auto& in : o.instances)
                if (in.instance == v) return usage_error("instance " + v + " given twice");
            capture::TraceSetup in;
            in.root = o.setup.root;
            in.instance = v;
            o.instances.push_back(std::move(in));
            negate = false;
            break;
        }
        default:
            return unsupported(c);
    }
    return -1;
}

// -k -q -o -m -s -r: how the run reads and where it writes.
int Parser::run_option(char c, const std::string& v) {
    long n = 0;
    switch (c) {
        case 'k':
            o.keep = true;
            break;
        case 'q':
            o.log = nullptr;
            break;
        case 'o':
            if (which == CaptureCommand::start)
                return usage_error("start does not take output\nDid you mean 'record'?");
            if (which == CaptureCommand::stream)
                return usage_error("stream does not take output\nDid you mean 'record'?");
            if (have_output) return usage_error("only one output file allowed");
            have_output = true;
            o.output = v;
            break;
        case 'm':
            if (o.knobs.max_kb) return usage_error("-m can only be specified once");
            if (which != CaptureCommand::record) return usage_error("only record take 'm' option");
            if (!number(v, n) || n <= 0) return usage_error("bad size -m " + v);
            o.knobs.max_kb = static_cast<uint64_t>(n);
            break;
        case 's':
            if (!number(v, n) || n < 0) return usage_error("bad interval -s " + v);
            o.knobs.sleep_us = static_cast<int>(n);
            break;
        case 'r':
            if (!number(v, n) || n < 1 || n > 99) return usage_error("bad priority -r " + v + " (1-99)");
            o.knobs.rt_prio = static_cast<int>(n);
            break;
        default:
            return unsupported(c);
    }
    return -1;
}

int Parser::option(char c, const std::string& v) {
    auto is = [c](const char* set) { return c != 0 && std::strchr(set, c) != nullptr; };
    if (o.instances.empty() && is("efRapglnPcFTOdDCMbvi")) after_setup = true;
    if (is("eafRvi")) return event_option(c, v);
    if (is("plngTOdD")) return tracer_option(c, v);
    if (is("PcFCMbB")) return buffer_option(c, v);
    if (is("kqomsr")) return run_option(c, v);
    return unsupported(c);
}

int Parser::long_option(const std::string& key, const std::string* value,
                        const std::vector<std::string>& args, size_t& i) {
    auto need = [&](std::string& out) {
        if (value) {
            out = *value;
            return true;
        }
        if (i + 1 >= args.size()) return false;
        out = args[++i];
        return true;
    };
    std::string v;
    if (key == "date") {
        o.date = true;
    } else if (key == "tsc2nsec") {
        o.tsc2nsec = true;
    } else if (key == "quiet") {
        o.log = nullptr;
    } else if (key == "no-filter") {
        o.no_filter = true;
    } else if (key == "max-graph-depth") {
        long n = 0;
        if (!need(v) || !number(v, n) || n < 0) return usage_error("--max-graph-depth needs a number");
        o.setup.max_graph_depth = v;
    } else if (key == "file-version" && which == CaptureCommand::record) {
        if (!need(v) || (v != "6" && v != "7")) return usage_error("--file-version takes 6 or 7");
        o.file_version = v == "6" ? 6 : 7;
    } else if (key == "compression" && which == CaptureCommand::record) {
        if (!need(v) || !parse_compression(v, o.compression))
            return usage_error("unknown compression '" + v + "' (none, zlib or zstd)");
    } else {
        return usage_error("unrecognised option '--" + key + "'");
    }
    return -1;
}

}  // namespace

bool parse_compression(const std::string& s, io::Compression& out) {
    if (s == "none")
        out = io::Compression::none;
    else if (s == "zlib")
        out = io::Compression::zlib;
    else if (s == "zstd" || s == "any")
        out = io::Compression::zstd;
    else
        return false;
    return true;
}

int parse_capture_args(CliContext& ctx, CaptureCommand which, const std::vector<std::string>& args,
                       capture::RecordOptions& out) {
    static const char* const names[] = {"record", "start", "stream"};
    Parser p{ctx, which, out, false, false, false, names[static_cast<int>(which)]};
    size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a.size() < 2 || a[0] != '-') break;  // the COMMAND
        if (a == "--help" || a == "-h") {
            std::printf("%s%s%s", kUsage[static_cast<int>(which)], kOptions,
                        which == CaptureCommand::record ? kRecordOptions : "");
            return kExitOk;
        }
        if (a[1] == '-') {
            const size_t eq = a.find('=');
            const std::string key = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            const std::string val = eq == std::string::npos ? "" : a.substr(eq + 1);
            if (int rc = p.long_option(key, eq == std::string::npos ? nullptr : &val, args, i); rc >= 0)
                return rc;
            continue;
        }
        for (size_t k = 1; k < a.size(); ++k) {
            const char c = a[k];
            if (takes_value(c)) {
                std::string v = a.substr(k + 1);
                if (v.empty()) {
                    if (i + 1 >= args.size())
                        return p.usage_error(std::string("option -") + c + " needs a value");
                    v = args[++i];
                }
                if (int rc = p.option(c, v); rc >= 0) return rc;
                break;
            }
            if (!is_flag(c)) return p.usage_error(std::string("unrecognised option '-") + c + "'");
            if (int rc = p.option(c, ""); rc >= 0) return rc;
        }
    }
    out.command.assign(args.begin() + static_cast<long>(i), args.end());
    if (which == CaptureCommand::start && !out.command.empty())
        return p.usage_error("Command start does not take any commands\nDid you mean 'record'?");
    // One -B and nothing before it: that instance is the buffer (an empty top buffer in the file).
    if (out.instances.size() == 1 && !p.after_setup) {
        out.setup = std::move(out.instances.front());
        out.instances.clear();
    }
    if (which == CaptureCommand::stream && !out.instances.empty())
        return p.usage_error("stream prints one buffer: one -B, with no option before it");
    bool any_event = capture::traces_something(out.setup);
    for (const auto& in : out.instances) any_event |= capture::traces_something(in);
    if (!any_event) return p.usage_error("no event or plugin was specified... aborting");
    for (const auto* s : capture::setups_of(out))
        if (s->children && s->pids.empty() && !out.filter_task)
            return p.usage_error("-c can only be used with -P or -F");
    return -1;
}

}  // namespace ringscope::cli
