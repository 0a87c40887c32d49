// `ringscope record -e EVENT [-e ...] [-B INSTANCE] [-b KB] [-C CLOCK] [-o FILE] [--compression C]
// [-- COMMAND ...]`: capture live events into a trace.dat v7.
#include <boost/program_options.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>

#include <ringscope/output_check.hpp>

#include "framework/capture/recorder.hpp"
#include "framework/cli/cli_context.hpp"
#include "framework/cli/option_parsing.hpp"

namespace po = boost::program_options;

namespace ringscope::cli {

// "none" / "zlib" / "zstd" (also used by extract).
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

int run_record(CliContext& ctx, const std::vector<std::string>& args) {
    po::options_description opts(
        "usage: ringscope record -e EVENT [-e EVENT ...] [-B INSTANCE] [-b KB] [-C CLOCK] [-o FILE]\n"
        "                        [--compression none|zlib|zstd] [--tsc2nsec] [--date] [-- COMMAND ...]\n\n"
        "Records events into a trace.dat (version 7): one reader per CPU, until COMMAND exits, or Ctrl-C /\n"
        "SIGTERM without a command. EVENT is SYSTEM, SYSTEM:EVENT, EVENT or \"all\" (globs allowed). The\n"
        "tracing state that was changed (events, buffer size, clock, the instance) is restored at the "
        "end.\n\n"
        "Options");
    opts.add_options()("help,h", "this text")("event,e", po::value<std::vector<std::string>>(),
                                              "event to record")(
        "instance,B", po::value<std::string>(), "record in a new instance (removed at the end)")(
        "buffer-size,b", po::value<uint64_t>(), "per-CPU buffer size in KB")(
        "clock,C", po::value<std::string>(), "trace clock (local, global, mono, x86-tsc...)")(
        "tsc2nsec", "record with x86-tsc and store the TSC -> ns conversion (as trace-cmd --tsc2nsec)")(
        "date", "store the trace clock's offset from the wall clock (reports print wall-clock times)")(
        "output,o", po::value<std::string>()->default_value("trace.dat"), "output file")(
        "compression", po::value<std::string>()->default_value("zstd"), "none, zlib or zstd")(
        "quiet,q", "no summary")("command", po::value<std::vector<std::string>>(), "command to run");
    // Everything after "--" (or from the first word that is not an option) is the command.
    std::vector<std::string> command;
    po::variables_map vm;
    if (int rc = parse_options_with_command(ctx, "record", opts, args, vm, command); rc >= 0) return rc;
    capture::RecordOptions o;
    if (!vm.count("event")) {
        ctx.error("record: no events given: use -e EVENT (see ringscope record --help)");
        return kExitUsage;
    }
    o.events = vm["event"].as<std::vector<std::string>>();
    if (vm.count("instance")) o.instance = vm["instance"].as<std::string>();
    if (vm.count("buffer-size")) o.buffer_kb = vm["buffer-size"].as<uint64_t>();
    if (vm.count("clock")) o.clock = vm["clock"].as<std::string>();
    o.tsc2nsec = vm.count("tsc2nsec") > 0;
    o.date = vm.count("date") > 0;
    o.output = vm["output"].as<std::string>();
    // "-" would be a file named "-" here: only a regular file (or a new one) is written.
    if (Status s = check_outputs({o.output == "-" ? "./-" : o.output}, {}); !s) {
        ctx.error("record: " + s.error().to_string());
        return kExitUsage;
    }
    if (!parse_compression(vm["compression"].as<std::string>(), o.compression)) {
        ctx.error("record: unknown compression '" + vm["compression"].as<std::string>() +
                  "' (none, zlib or zstd)");
        return kExitUsage;
    }
    o.command = std::move(command);
    if (vm.count("quiet")) o.log = nullptr;
    auto r = capture::record(o);
    if (!r) {
        ctx.error("record: " + r.error().to_string());
        return kExitRuntime;
    }
    if (r->interrupted && o.log) std::fprintf(o.log, "interrupted: recording stopped\n");
    if (o.log && r->command_status > 0) {
        const int st = r->command_status;
        if (WIFEXITED(st))
            std::fprintf(o.log, "%s exited with status %d\n", o.command[0].c_str(), WEXITSTATUS(st));
        else if (WIFSIGNALED(st))
            std::fprintf(o.log, "%s was killed by signal %d\n", o.command[0].c_str(), WTERMSIG(st));
    }
    return kExitOk;
}

}  // namespace ringscope::cli
