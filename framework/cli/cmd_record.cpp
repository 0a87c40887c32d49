// `ringscope record [trace-cmd record's options] [-- COMMAND ...]`: capture live events into a
// trace.dat v7; `ringscope start`: the same set-up, left running.
#include <sys/wait.h>

#include <csignal>
#include <cstdio>

#include <ringscope/output_check.hpp>

#include "framework/capture/capture_recovery.hpp"
#include "framework/capture/recorder.hpp"
#include "framework/cli/capture_args.hpp"
#include "framework/cli/cli_context.hpp"
#include "framework/cli/tracefs_commands.hpp"

namespace ringscope::cli {

namespace {

// `record --recover OUTPUT`: the file of a record that was killed, from OUTPUT.head and
// OUTPUT.cpuN (the journal's recovery does the same by itself; this is for when it could not).
int recover(CliContext& ctx, const std::vector<std::string>& args) {
    std::string output;
    if (args[0].size() > 10 && args[0][9] == '=')
        output = args[0].substr(10);
    else if (args[0] == "--recover" && args.size() == 2)
        output = args[1];
    if (output.empty() || args.size() > (args[0] == "--recover" ? 2u : 1u)) {
        ctx.error(
            "record: --recover takes one argument, the output of the killed record (see ringscope "
            "record --help)");
        return kExitUsage;
    }
    auto r = capture::recover_capture(output);
    if (!r) {
        ctx.error("record --recover: " + r.error().to_string());
        return kExitRuntime;
    }
    std::fprintf(stderr, "%s: %llu bytes of trace data from %zu CPUs (recovered)\n", output.c_str(),
                 static_cast<unsigned long long>(r->bytes), r->cpus);
    return kExitOk;
}

}  // namespace

int run_record(CliContext& ctx, const std::vector<std::string>& args) {
    if (!args.empty() && args[0].rfind("--recover", 0) == 0) return recover(ctx, args);
    capture::RecordOptions o;
    if (int rc = parse_capture_args(ctx, CaptureCommand::record, args, o); rc >= 0) return rc;
    recover_tracing_state(ctx);
    // "-" would be a file named "-" here: only a regular file (or a new one) is written.
    if (Status s = check_outputs({o.output == "-" ? "./-" : o.output}, {}); !s) {
        ctx.error("record: " + s.error().to_string());
        return kExitUsage;
    }
    auto r = capture::record(o);
    if (!r) {
        ctx.error("record: " + r.error().to_string());
        return kExitRuntime;
    }
    if (r->interrupted && o.log)
        std::fprintf(o.log, "interrupted (%s): recording stopped\n", strsignal(r->signal));
    if (o.log && r->command_status > 0) {
        const int st = r->command_status;
        if (WIFEXITED(st))
            std::fprintf(o.log, "%s exited with status %d\n", o.command[0].c_str(), WEXITSTATUS(st));
        else if (WIFSIGNALED(st))
            std::fprintf(o.log, "%s was killed by signal %d\n", o.command[0].c_str(), WTERMSIG(st));
    }
    return kExitOk;
}

int run_start(CliContext& ctx, const std::vector<std::string>& args) {
    capture::RecordOptions o;
    if (int rc = parse_capture_args(ctx, CaptureCommand::start, args, o); rc >= 0) return rc;
    recover_tracing_state(ctx);
    capture::SignalScope signals;  // a signal during the set-up: everything is put back
    // One session per buffer (the top one, then each -B), all kept running.
    std::vector<std::unique_ptr<capture::TracingSession>> sessions;
    Status st;
    for (const capture::TraceSetup* setup : capture::setups_of(o)) {
        auto session = capture::TracingSession::start(*setup);
        if (!session) {
            st = std::move(session).error();
            break;
        }
        sessions.push_back(std::move(*session));
    }
    for (auto& s : sessions)
        if (st && o.filter_task) st = s->trace_only_pid(static_cast<int>(::getpid()));
    for (auto& s : sessions)
        if (st) st = s->set_tracing(true);
    timespec zero{0, 0};
    siginfo_t info;
    if (st && sigtimedwait(&signals.set(), &info, &zero) > 0 && info.si_signo != SIGCHLD)
        st = Error(Errc::io, std::string("interrupted by ") + strsignal(info.si_signo));
    if (!st) {
        for (auto it = sessions.rbegin(); it != sessions.rend(); ++it) (void)(*it)->restore();
        ctx.error("start: " + st.error().to_string() + " (the tracing state was put back)");
        return kExitRuntime;
    }
    for (auto& s : sessions)
        if (Status kept = s->keep(); !kept) {
            ctx.error("start: " + kept.error().to_string());
            return kExitRuntime;
        }
    return kExitOk;
}

}  // namespace ringscope::cli
