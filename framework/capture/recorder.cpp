#include "framework/capture/recorder.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "framework/capture/capture_files.hpp"
#include "framework/capture/capture_recovery.hpp"
#include "framework/capture/clock_conversion.hpp"
#include "framework/capture/metadata.hpp"
#include "framework/capture/trace_assembler.hpp"

namespace ringscope::capture {

namespace {

uint64_t metadata_bytes(const io::TraceMetadata& m) {
    uint64_t n = m.header_page.size() + m.header_event.size() + m.kallsyms.size() + m.printk_formats.size();
    for (const auto& f : m.ftrace_formats) n += f.size() + 16;
    for (const auto& s : m.event_systems)
        for (const auto& f : s.formats) n += f.size() + 16;
    return n;
}

// COMMAND, forked now but held before exec until release(): -F writes its pid to set_event_pid
// first, and tracing goes on before it runs.
class GatedChild {
  public:
    GatedChild(const std::vector<std::string>& command, const sigset_t& mask) {
        int gate[2];
        if (::pipe2(gate, O_CLOEXEC) != 0) return;
        std::vector<char*> argv;
        for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        pid_ = ::fork();
        if (pid_ == 0) {
            pthread_sigmask(SIG_SETMASK, &mask, nullptr);
            char c;
            ::close(gate[1]);
            if (::read(gate[0], &c, 1) != 1) ::_exit(127);  // the recorder gave up
            ::execvp(argv[0], argv.data());
            std::fprintf(stderr, "ringscope record: cannot run %s: %s\n", argv[0], std::strerror(errno));
            ::_exit(127);
        }
        ::close(gate[0]);
        gate_ = gate[1];
        if (pid_ < 0) close_gate();
    }
    ~GatedChild() { close_gate(); }
    pid_t pid() const noexcept { return pid_; }
    void release() {
        if (gate_ >= 0) (void)!::write(gate_, "g", 1);
        close_gate();
    }

  private:
    void close_gate() {
        if (gate_ >= 0) ::close(gate_);
        gate_ = -1;
    }
    pid_t pid_ = -1;
    int gate_ = -1;
};

Status collect_stats(const tracefs::Instance& inst, CaptureResult& res) {
    for (auto& c : res.cpus) {
        auto s = inst.cpu_stats(c.cpu);
        if (!s) return std::move(s).error();
        c.stats = std::move(*s);
    }
    return {};
}

Status check_options(const RecordOptions& o) {
    bool any_event = false;
    for (const auto& e : o.setup.events) any_event |= !e.negated;
    if (!any_event && o.setup.tracer.empty())
        return Error(Errc::invalid_argument, "no event or plugin was specified... aborting");
    if (o.setup.children && o.setup.pids.empty() && !o.filter_task)
        return Error(Errc::invalid_argument, "-c can only be used with -P or -F");
    return {};
}

// Waits for COMMAND, a signal, or a reader that failed.
void wait_for_end(const sigset_t& set, pid_t& child, const std::atomic<bool>& failed, CaptureResult& res) {
    while (!failed.load()) {
        timespec tick{0, 50 * 1000 * 1000};
        siginfo_t info;
        const int sig = sigtimedwait(&set, &info, &tick);
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGPIPE) {
            res.interrupted = true;
            res.signal = sig;
            if (child > 0) ::kill(child, sig);
            return;
        }
        if (child > 0) {
            int status = 0;
            if (::waitpid(child, &status, WNOHANG) == child) {
                res.command_status = status;
                child = -1;
                return;
            }
        }
    }
}

// The readers' tids left out (unless --no-filter), COMMAND forked and held, -F's pid filter,
// tracing on, COMMAND released. `child` is COMMAND's pid (reaped by the caller) or -1.
Status start_tracing(TracingSession& sess, const RecordOptions& o,
                     const std::vector<std::unique_ptr<CpuReader>>& readers, const sigset_t& child_mask,
                     pid_t& child) {
    Status on;
    if (!o.no_filter) {
        std::vector<int> tids;
        for (auto& r : readers) {
            while (!r->tid()) std::this_thread::yield();
            tids.push_back(r->tid());
        }
        on = sess.exclude_pids(tids);
    }
    std::optional<GatedChild> gated;
    if (on && !o.command.empty()) {
        gated.emplace(o.command, child_mask);
        child = gated->pid();
        if (child < 0) on = Error(Errc::io, std::string("cannot fork: ") + std::strerror(errno));
    }
    if (on && o.filter_task) on = sess.trace_only_pid(child > 0 ? child : ::getpid());
    if (on) on = sess.set_tracing(true);
    if (gated && on) gated->release();
    return on;  // without release the child exits 127 without running COMMAND
}

// Stops the readers, writes what the buffers still hold (whole sub-buffers, up to the last one)
// and reads the kernel's per-CPU counts. The first failure, if any.
std::optional<Error> drain_readers(std::vector<std::unique_ptr<CpuReader>>& readers,
                                   std::vector<std::thread>& threads, const CaptureFiles& files,
                                   const tracefs::Instance& inst, FILE* log, CaptureResult& res) {
    std::optional<Error> failure;
    for (auto& r : readers) r->stop();
    for (auto& t : threads) t.join();
    for (size_t i = 0; i < readers.size(); ++i) {
        CpuReader& r = *readers[i];
        const int cpu = files.files()[i].cpu;
        if (!r.warning().empty() && log) std::fprintf(log, "warning: %s\n", r.warning().c_str());
        // Nothing more goes to a file that failed; the others get what the buffer still holds.
        const char* what = r.error() ? "writing" : r.flush_rest() < 0 ? "flushing" : nullptr;
        if (what && !failure)
            failure = Error(Errc::io, std::string(what) + " CPU " + std::to_string(cpu) +
                                          " data failed: " + std::strerror(r.error() ? r.error() : errno))
                          .in_file(files.files()[i].path)
                          .at_offset(static_cast<int64_t>(r.bytes()));
        res.cpus.push_back({cpu, r.bytes(), {}});
    }
    if (Status st = collect_stats(inst, res); !st && !failure) failure = st.error();
    return failure;
}

}  // namespace

SignalScope::SignalScope() {
    sigemptyset(&set_);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD}) sigaddset(&set_, s);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
}

SignalScope::~SignalScope() {
    // Drop what arrived while saving (a second Ctrl-C must not kill the finished run).
    timespec zero{0, 0};
    siginfo_t info;
    while (sigtimedwait(&set_, &info, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

Expected<CaptureResult> record(const RecordOptions& o) {
    if (Status st = check_options(o); !st) return std::move(st).error();
    TraceSetup setup = o.setup;
    std::optional<io::Tsc2Nsec> tsc2nsec;
    if (o.tsc2nsec) {
        if (!setup.clock.empty() && setup.clock != "x86-tsc")
            return Error(Errc::invalid_argument,
                         "--tsc2nsec records with the x86-tsc clock, not " + setup.clock);
        setup.clock = "x86-tsc";
        // Checked before anything changes: where the kernel does not publish the conversion, fail.
        auto t = read_tsc2nsec();
        if (!t) return std::move(t).error();
        tsc2nsec = *t;
    }
    // From the first change on: a signal during the setup ends the run through the normal path
    // (state restored) instead of killing the process.
    SignalScope signals;
    auto session = TracingSession::start(setup);
    if (!session) return std::move(session).error();
    TracingSession& sess = **session;
    const tracefs::Instance& inst = sess.instance();
    const std::vector<int>& cpus = sess.cpus();

    auto meta =
        collect_metadata(inst, o.all_formats ? nullptr : &sess.events(), static_cast<uint32_t>(cpus.size()));
    if (!meta) return std::move(meta).error();  // the session's destructor restores
    auto subbuf = inst.subbuf_size();
    if (!subbuf) return std::move(subbuf).error();
    auto clock = inst.clock();
    if (!clock) return std::move(clock).error();
    meta->options.tsc2nsec = tsc2nsec;
    if (o.date) {
        auto scratch = sess.make_scratch_instance("ringscope-date-" + std::to_string(::getpid()));
        if (!scratch) return std::move(scratch).error();
        auto date = measure_date_offset(*scratch, *clock);
        (void)scratch->destroy();
        if (!date) return std::move(date).error();
        meta->options.date = std::move(*date);
    }

    const uint64_t reserve = metadata_bytes(*meta) + uint64_t{4} * 64 * *subbuf + (256u << 10);
    auto files = CaptureFiles::create(o.output, cpus, reserve);
    if (!files) return std::move(files).error();
    AssembleSpec spec =
        capture_spec(o.output, o.compression, setup.instance, *clock, *subbuf, files->files());
    // Killed from here on (SIGKILL, a crash), the next command assembles the file from the head
    // and the CPU files: the journal names it.
    if (Status st = write_capture_head(spec, *meta); !st) return std::move(st).error();
    if (Status st = files->adopt_locked(capture_head_path(o.output)); !st) return std::move(st).error();
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(o.output, ec);
    if (Status st = sess.note_capture(ec ? o.output : abs.lexically_normal().string()); !st)
        return std::move(st).error();

    ReaderKnobs knobs = o.knobs;
    knobs.subbuf = *subbuf;
    std::vector<std::unique_ptr<CpuReader>> readers;
    for (size_t i = 0; i < cpus.size(); ++i) {
        auto c = tracefs::TracefsCpu::open(inst, cpus[i], false);
        if (!c) return std::move(c).error();
        auto r = std::make_unique<CpuReader>(std::move(*c), files->fd(i), knobs);
        if (o.pipe_size > 0) r->cpu().set_pipe_size(o.pipe_size);
        readers.push_back(std::move(r));
    }

    CaptureResult res;
    std::optional<Error> failure;
    std::atomic<bool> failed{false};
    std::vector<std::thread> threads;
    for (auto& r : readers) threads.emplace_back([&r, &failed] { r->run(failed); });
    pid_t child = -1;
    Status on = start_tracing(sess, o, readers, signals.old(), child);
    if (!on) failure = on.error();
    if (on) wait_for_end(signals.set(), child, failed, res);
    (void)sess.set_tracing(false);
    if (auto f = drain_readers(readers, threads, *files, inst, o.log, res); f && !failure)
        failure = std::move(f);
    readers.clear();  // closes trace_pipe_raw: the instance cannot go while it is open
    (void)finish_metadata(*meta, inst, cpus, [&] {
        std::vector<tracefs::CpuStats> v;
        for (const auto& c : res.cpus) v.push_back(c.stats);
        return v;
    }());
    Status restored = o.keep ? sess.keep() : sess.restore();

    files->close_fds();
    const bool disk_trouble = failure.has_value();
    if (disk_trouble) files->release_reserve();
    spec.release_copied = disk_trouble;
    Status written = assemble_trace_dat(spec, std::move(*meta));
    files->remove_all();
    if (child > 0) {
        int status = 0;
        while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        res.command_status = status;
    }
    if (!written) {
        Error e = std::move(written).error();
        if (failure)
            e = Error(e.code(), failure->to_string() + "; then saving the trace failed: " + e.to_string());
        return e;
    }
    if (!restored)
        return Error(restored.error().code(),
                     "the trace was saved to " + o.output +
                         ", but restoring the tracing state failed: " + restored.error().to_string());
    if (o.log) print_capture_summary(o.log, res, o.output);
    if (failure)
        return Error(failure->code(), failure->to_string() + "; recording stopped: " + o.output +
                                          " holds the data captured up to then");
    return res;
}

void print_capture_summary(FILE* out, const CaptureResult& r, const std::string& output) {
    uint64_t total = 0;
    for (const auto& c : r.cpus) {
        total += c.bytes;
        std::fprintf(out, "CPU%d: %llu bytes, %llu events read", c.cpu,
                     static_cast<unsigned long long>(c.bytes),
                     static_cast<unsigned long long>(c.stats.read_events));
        if (c.stats.lost())
            std::fprintf(out, ", %llu LOST (overrun %llu, commit overrun %llu, dropped %llu)",
                         static_cast<unsigned long long>(c.stats.lost()),
                         static_cast<unsigned long long>(c.stats.overrun),
                         static_cast<unsigned long long>(c.stats.commit_overrun),
                         static_cast<unsigned long long>(c.stats.dropped_events));
        std::fputc('\n', out);
    }
    if (const uint64_t lost = r.lost())
        std::fprintf(
            out,
            "WARNING: %llu events were lost: the buffer is too small for this event rate (raise -b); "
            "the per-CPU counts are stored in %s (report --stat)\n",
            static_cast<unsigned long long>(lost), output.c_str());
    std::fprintf(out, "%s: %llu bytes of trace data from %zu CPUs\n", output.c_str(),
                 static_cast<unsigned long long>(total), r.cpus.size());
}

}  // namespace ringscope::capture
