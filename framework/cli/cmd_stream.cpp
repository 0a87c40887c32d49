// `ringscope stream [trace-cmd record's options] [-- COMMAND ...]`: prints events live, each line
// as `ringscope report` prints it, until COMMAND exits, a signal (INT, TERM, HUP, PIPE) or stdout
// fails; the tracing state is restored in every case.
//
// The formats, kallsyms and cmdlines come from a metadata-only trace.dat written to a temporary
// file and opened with the engine (the same TraceFile, print dispatch and line writer as report).
// The CPUs are read without blocking after each poll(); the records of one round are printed in
// time order (events that arrive in a later round than newer ones of another CPU print after
// them, as with trace-cmd stream).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <unordered_set>

#include <ringscope/sub_buffer.hpp>
#include <ringscope/tracefs.hpp>

#include "framework/capture/metadata.hpp"
#include "framework/capture/trace_assembler.hpp"
#include "framework/capture/tracing_session.hpp"
#include "framework/cli/capture_args.hpp"
#include "framework/cli/cli_context.hpp"
#include "framework/cli/report_compat.hpp"
#include "framework/cli/tracefs_commands.hpp"
#include "framework/engine/print_dispatch.hpp"
#include "framework/engine/trace_file.hpp"
#include "framework/output/output_buffer.hpp"
#include "framework/output/report_line_writer.hpp"

namespace ringscope::cli {

namespace {

struct Pending {
    uint64_t ts;
    int64_t missed;
    uint32_t page;  // index into the round's page store
    uint32_t off;   // payload offset in the page
    uint32_t size;
    int cpu;
    int cpu_index;
};

class StreamRun {
  public:
    StreamRun(CliContext& ctx) : ctx_(ctx) {}
    int run(const capture::RecordOptions& o);

  private:
    int fail(const Error& e) {
        cpus_.clear();  // the instance can only be removed once its readers are closed
        ctx_.error("stream: " + e.to_string());
        return kExitRuntime;
    }
    // Reads what each CPU has (non-blocking) and prints it in time order. False on a read error.
    bool drain_round();
    void print_pending();
    // The formats, kallsyms and cmdlines of the session, in a metadata-only trace.dat that the
    // engine opens (the file's name is gone once it is mapped).
    Status open_metadata(capture::TracingSession& sess);
    // The plugins' handlers, the print dispatch over them, and the common fields' layout.
    void start_handlers();
    // Polls the CPUs and prints each round until a signal, the end of `child` or a failure.
    void print_until_stopped(int sfd, pid_t& child);

    CliContext& ctx_;
    std::unique_ptr<engine::TraceFile> file_;
    std::vector<std::unique_ptr<EventHandler>> handlers_;
    std::unique_ptr<engine::PrintDispatch> dispatch_;
    std::vector<tracefs::TracefsCpu> cpus_;
    std::vector<uint8_t> pages_;  // this round's sub-buffers, back to back
    size_t page_count_ = 0;
    uint32_t subbuf_ = 4096;
    std::vector<Pending> pending_;
    std::unique_ptr<output::OutputBuffer> out_;
    std::unique_ptr<output::ReportLineWriter> lines_;
    output::CommonLayout common_;
    TextBuffer info_;
    SubBufferLayout layout_;
    int read_errno_ = 0;
    std::string root_;
    std::unordered_set<int> tried_;  // pids looked up in saved_cmdlines already
};

bool StreamRun::drain_round() {
    page_count_ = 0;
    pending_.clear();
    for (size_t ci = 0; ci < cpus_.size(); ++ci) {
        for (int rounds = 0; rounds < 256; ++rounds) {  // bounded: other CPUs get their turn
            if ((page_count_ + 1) * subbuf_ > pages_.size()) pages_.resize((page_count_ + 1) * subbuf_ * 2);
            uint8_t* page = pages_.data() + page_count_ * subbuf_;
            const int n = cpus_[ci].read(page, true);
            if (n < 0) {
                read_errno_ = errno;
                return false;
            }
            if (n == 0) break;
            if (static_cast<uint32_t>(n) < subbuf_)
                std::memset(page + n, 0, subbuf_ - static_cast<uint32_t>(n));
            SubBufferCursor cur(layout_);
            if (!cur.reset({page, subbuf_})) continue;  // a page that does not load: skip it
            const int64_t missed = cur.missed_events();
            bool first = true;
            for (SubBufferRecord r; cur.next(r);) {
                pending_.push_back({file_->clock().convert(r.ts, static_cast<int>(ci)), first ? missed : 0,
                                    static_cast<uint32_t>(page_count_), static_cast<uint32_t>(r.data - page),
                                    r.size, cpus_[ci].cpu(), static_cast<int>(ci)});
                first = false;
            }
            ++page_count_;
        }
    }
    print_pending();
    return true;
}

void StreamRun::print_pending() {
    std::stable_sort(pending_.begin(), pending_.end(),
                     [](const Pending& a, const Pending& b) { return a.ts < b.ts; });
    const output::TimeStyle ts{file_->in_usecs(), file_->use_trace_clock()};
    // Tasks that started after the snapshot of saved_cmdlines: load the kernel's list again, once
    // per round (their names are there by now: the kernel saves them when they trace).
    bool refreshed = false;
    for (const Pending& p : pending_) {
        const uint8_t* d = pages_.data() + size_t{p.page} * subbuf_ + p.off;
        const EventType* t = file_->type_of(d, p.size);
        if (!t) continue;
        const int pid = Event(t, file_.get(), {d, p.size}, p.ts, p.cpu, 0).pid();
        if (pid > 0 && !file_->comms().contains(pid) && tried_.insert(pid).second) {
            if (auto c = tracefs::read_saved_cmdlines(root_)) file_->comms().load_saved_cmdlines(*c);
            refreshed = true;
        }
        if (refreshed) break;
    }
    for (const Pending& p : pending_) {
        const uint8_t* data = pages_.data() + size_t{p.page} * subbuf_ + p.off;
        const EventType* type = file_->type_of(data, p.size);
        if (!type) continue;
        Event ev(type, file_.get(), {data, p.size}, p.ts, p.cpu, p.missed);
        const int pid = ev.pid();
        const std::string_view comm = file_->comm(pid);
        info_.clear();
        dispatch_->print_info(ev, info_);
        lines_->write("", ev, comm, pid, p.ts, p.missed, ts, common_, info_.view());
        for (EventHandler* h : dispatch_->subscribers(type->id)) h->on_event(ev);
    }
    out_->flush();
}

Status StreamRun::open_metadata(capture::TracingSession& sess) {
    const tracefs::Instance& inst = sess.instance();
    auto meta = capture::collect_metadata(inst, &sess.events(), static_cast<uint32_t>(sess.cpus().size()));
    if (!meta) return meta.error();
    if (auto c = tracefs::read_saved_cmdlines(inst.root())) meta->saved_cmdlines = std::move(*c);
    auto subbuf = inst.subbuf_size();
    if (!subbuf) return subbuf.error();
    subbuf_ = *subbuf;
    auto clock = inst.clock();
    if (!clock) return clock.error();
    const char* tmpdir = std::getenv("TMPDIR");
    std::string tmp = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/ringscope-stream-XXXXXX";
    const int tfd = ::mkstemp(tmp.data());
    if (tfd < 0)
        return Error(Errc::io, std::string("cannot create a temporary file: ") + std::strerror(errno));
    ::close(tfd);
    capture::AssembleSpec spec;
    spec.output = tmp;
    spec.config.compression = io::Compression::none;
    spec.buffers.push_back({"", *clock, subbuf_, {}});
    Status made = capture::assemble_trace_dat(spec, std::move(*meta));
    if (!made) {
        ::unlink(tmp.c_str());
        return made.error();
    }
    auto file = engine::TraceFile::open(tmp, engine::OpenOptions{});
    ::unlink(tmp.c_str());  // the engine maps it: the name is no longer needed
    if (!file) return file.error();
    file_ = std::move(*file);
    layout_ = file_->layout();
    layout_.subbuf_size = subbuf_;
    return {};
}

void StreamRun::start_handlers() {
    if (!ctx_.no_plugins)
        for (const auto& h : ctx_.plugins().handlers()) {
            try {
                if (auto hi = h.factory()) handlers_.push_back(std::move(hi));
            } catch (const std::exception& e) {
                std::fprintf(stderr, "%s stream: plugin %s: %s\n", ctx_.program.c_str(), h.plugin.c_str(),
                             e.what());
            }
        }
    std::vector<EventHandler*> raw;
    for (auto& h : handlers_) raw.push_back(h.get());
    dispatch_ = std::make_unique<engine::PrintDispatch>(*file_, raw);
    for (const EventType* t : file_->types()) {
        const FieldInfo* fl = t->find_field("common_flags");
        const FieldInfo* pc = t->find_field("common_preempt_count");
        if (fl) {
            common_ = {fl->offset, fl->size, pc ? pc->offset : 0, pc ? pc->size : 0};
            break;
        }
    }
    for (auto& h : handlers_) h->begin(*file_);
}

void StreamRun::print_until_stopped(int sfd, pid_t& child) {
    std::vector<pollfd> fds;
    for (bool done = false; !done;) {
        fds.clear();
        fds.push_back({sfd, POLLIN, 0});
        for (auto& c : cpus_) fds.push_back({c.fd(), POLLIN, 0});
        ::poll(fds.data(), fds.size(), 200);
        signalfd_siginfo si;
        while (::read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
            if (si.ssi_signo != SIGCHLD) {  // INT, TERM, HUP, PIPE: stop, restore, exit
                done = true;
                if (child > 0) ::kill(child, static_cast<int>(si.ssi_signo));
            }
        }
        if (child > 0) {
            int status;
            if (::waitpid(child, &status, WNOHANG) == child) {
                child = -1;
                done = true;
            }
        }
        if (!drain_round() || out_->failed()) break;
    }
}

// Runs `command` in a child with the signal mask `old`; its pid.
pid_t start_command(const std::vector<std::string>& command, const sigset_t& old) {
    const pid_t child = ::fork();
    if (child == 0) {
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
        std::vector<char*> argv;
        for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execvp(argv[0], argv.data());
        std::fprintf(stderr, "ringscope stream: cannot run %s: %s\n", argv[0], std::strerror(errno));
        ::_exit(127);
    }
    return child;
}

int StreamRun::run(const capture::RecordOptions& o) {
    const std::vector<std::string>& command = o.command;
    // The line as report prints it by default: the release RINGSCOPE_COMPAT names, else 3.4 (the
    // flags column). Checked before tracing is touched.
    std::string compat_error;
    const std::optional<Compat> compat = default_compat(compat_error);
    if (!compat) {
        ctx_.error("stream: " + compat_error);
        return kExitUsage;
    }
    // Signals are blocked from the first change on, so that Ctrl-C always ends through the restore.
    sigset_t set, old;
    sigemptyset(&set);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD}) sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    struct Unblock {
        sigset_t set, old;
        ~Unblock() {
            timespec zero{0, 0};
            siginfo_t info;
            while (sigtimedwait(&set, &info, &zero) > 0) {
            }
            pthread_sigmask(SIG_SETMASK, &old, nullptr);
        }
    } unblock{set, old};

    auto session = capture::TracingSession::start(o.setup);
    if (!session) return fail(session.error());
    capture::TracingSession& sess = **session;
    root_ = sess.instance().root();
    if (Status st = open_metadata(sess); !st) return fail(st.error());
    start_handlers();
    for (int cpu : sess.cpus()) {
        auto c = tracefs::TracefsCpu::open(sess.instance(), cpu, true);
        if (!c) return fail(c.error());
        cpus_.push_back(std::move(*c));
    }
    std::fflush(stdout);
    out_ = std::make_unique<output::OutputBuffer>(stdout);
    output::ReportStyle style;
    apply_compat(*compat, style);
    lines_ = std::make_unique<output::ReportLineWriter>(*out_, style);

    const int sfd = ::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    // Without it no signal would stop the loop: tracing is not started, the state is put back.
    Status on = sfd >= 0 ? Status{}
                         : Status{Error(Errc::io, std::string("signalfd failed: ") + std::strerror(errno))};
    // trace-cmd leaves its own threads out; with a COMMAND it forks from this one, so only without.
    if (on && !o.no_filter && command.empty()) on = sess.exclude_pids({static_cast<int>(::getpid())});
    if (on) on = sess.set_tracing(true);
    pid_t child = on && !command.empty() ? start_command(command, old) : -1;
    if (on.ok() && sfd >= 0) print_until_stopped(sfd, child);
    (void)sess.set_tracing(false);
    if (read_errno_ == 0 && !out_->failed()) (void)drain_round();  // what is left in the buffers
    cpus_.clear();
    Status restored = sess.restore();
    if (child > 0) ::waitpid(child, nullptr, 0);
    if (sfd >= 0) ::close(sfd);
    out_->flush();
    if (const std::string& note = file_->btf_diagnostic(); !note.empty())
        std::fprintf(stderr, "ringscope: %s\n", note.c_str());
    if (!on) return fail(on.error());
    if (read_errno_)
        return fail(
            Error(Errc::io, std::string("reading trace_pipe_raw failed: ") + std::strerror(read_errno_)));
    if (out_->failed() && out_->error_number() != EPIPE)
        return fail(Error(Errc::io, std::string("write error: ") + std::strerror(out_->error_number())));
    if (!restored) return fail(restored.error());
    return kExitOk;
}

}  // namespace

int run_stream(CliContext& ctx, const std::vector<std::string>& args) {
    capture::RecordOptions o;
    if (int rc = parse_capture_args(ctx, CaptureCommand::stream, args, o); rc >= 0) return rc;
    recover_tracing_state(ctx);
    StreamRun run(ctx);
    return run.run(o);
}

}  // namespace ringscope::cli
