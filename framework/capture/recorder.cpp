#include "framework/capture/recorder.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
#include "framework/capture/kernel_sections.hpp"
#include "framework/capture/metadata.hpp"
#include "framework/capture/trace_assembler.hpp"
#include "framework/io/unfinished_trace.hpp"

namespace ringscope::capture {

namespace {

uint64_t metadata_bytes(const io::TraceMetadata& m) {
    uint64_t n = m.header_page.size() + m.header_event.size() + m.kallsyms.size() + m.printk_formats.size();
    for (const auto& f : m.ftrace_formats) n += f.size() + 16;
    for (const auto& s : m.event_systems)
        for (const auto& f : s.formats) n += f.size() + 16;
    for (const auto& x : m.extra_sections) n += x.data.size() + 32;
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

Status check_options(const RecordOptions& o) {
    bool any = false;
    for (const TraceSetup* s : setups_of(o)) {
        any |= traces_something(*s);
        if (s->children && s->pids.empty() && !o.filter_task)
            return Error(Errc::invalid_argument, "-c can only be used with -P or -F");
    }
    if (!any) return Error(Errc::invalid_argument, "no event or plugin was specified... aborting");
    return {};
}

// One buffer of the recording: its tracing session, its data files and readers.
struct BufferRun {
    std::unique_ptr<TracingSession> session;
    uint32_t subbuf = 0;
    std::string clock;
    std::optional<CaptureFiles> files;
    std::vector<std::unique_ptr<CpuReader>> readers;
    std::vector<std::thread> threads;
    const tracefs::Instance& instance() const { return session->instance(); }
};

// Every buffer's events, for the formats that go in the file.
EventSelection all_events(const std::vector<BufferRun>& runs) {
    EventSelection sel;
    for (const auto& r : runs)
        sel.events.insert(sel.events.end(), r.session->events().events.begin(),
                          r.session->events().events.end());
    std::sort(sel.events.begin(), sel.events.end());
    sel.events.erase(std::unique(sel.events.begin(), sel.events.end()), sel.events.end());
    return sel;
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
// tracing on in every buffer, COMMAND released. `child` is COMMAND's pid (reaped by the caller) or -1.
Status start_tracing(std::vector<BufferRun>& runs, const RecordOptions& o, const sigset_t& child_mask,
                     pid_t& child) {
    Status on;
    if (!o.no_filter) {
        std::vector<int> tids;
        for (auto& run : runs)
            for (auto& r : run.readers) {
                while (!r->tid()) std::this_thread::yield();
                tids.push_back(r->tid());
            }
        for (auto& run : runs)
            if (on) on = run.session->exclude_pids(tids);
    }
    std::optional<GatedChild> gated;
    if (on && !o.command.empty()) {
        gated.emplace(o.command, child_mask);
        child = gated->pid();
        if (child < 0) on = Error(Errc::io, std::string("cannot fork: ") + std::strerror(errno));
    }
    for (auto& run : runs)
        if (on && o.filter_task) on = run.session->trace_only_pid(child > 0 ? child : ::getpid());
    for (auto& run : runs)
        if (on) on = run.session->set_tracing(true);
    if (gated && on) gated->release();
    return on;  // without release the child exits 127 without running COMMAND
}

// Stops the readers, writes what the buffers still hold (whole sub-buffers, up to the last one)
// and reads the kernel's per-CPU counts. The first failure, if any.
std::optional<Error> drain_readers(BufferRun& run, FILE* log, CaptureResult& res) {
    std::optional<Error> failure;
    for (auto& r : run.readers) r->stop();
    for (auto& t : run.threads) t.join();
    run.threads.clear();
    for (size_t i = 0; i < run.readers.size(); ++i) {
        CpuReader& r = *run.readers[i];
        const int cpu = run.files->files()[i].cpu;
        if (!r.warning().empty() && log) std::fprintf(log, "warning: %s\n", r.warning().c_str());
        // Nothing more goes to a file that failed; the others get what the buffer still holds.
        const char* what = r.error() ? "writing" : r.flush_rest() < 0 ? "flushing" : nullptr;
        if (what && !failure)
            failure = Error(Errc::io, std::string(what) + " CPU " + std::to_string(cpu) +
                                          " data failed: " + std::strerror(r.error() ? r.error() : errno))
                          .in_file(run.files->files()[i].path)
                          .at_offset(static_cast<int64_t>(r.bytes()));
        CpuCapture c{run.instance().name(), cpu, r.bytes(), {}};
        auto st = run.instance().cpu_stats(cpu);
        if (st)
            c.stats = std::move(*st);
        else if (!failure)
            failure = std::move(st).error();
        res.cpus.push_back(std::move(c));
    }
    return failure;
}

// The session of each buffer, in file order; a failure restores what the earlier ones changed.
Expected<std::vector<BufferRun>> start_sessions(const RecordOptions& o) {
    std::vector<BufferRun> runs;
    for (const TraceSetup* s : setups_of(o)) {
        auto session = TracingSession::start(*s);
        if (!session) {
            for (auto it = runs.rbegin(); it != runs.rend(); ++it) (void)it->session->restore();
            return std::move(session).error();
        }
        runs.push_back({std::move(*session), 0, {}, {}, {}, {}});
    }
    return runs;
}

Status restore_all(std::vector<BufferRun>& runs, bool keep) {
    Status first;
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
        Status st = keep ? it->session->keep() : it->session->restore();
        if (!st && first) first = std::move(st);
    }
    return first;
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

void store_cpu_stats(io::TraceMetadata& meta, const std::vector<std::string>& buffers,
                     const CaptureResult& res) {
    meta.options.cpustats.clear();
    for (size_t b = 0; b < buffers.size(); ++b) {
        if (b > 0) meta.options.cpustats.push_back("\nBuffer: " + buffers[b] + "\n\n");
        for (const auto& c : res.cpus)
            if (c.buffer == buffers[b])
                meta.options.cpustats.push_back("CPU: " + std::to_string(c.cpu) + "\n" + c.stats.text);
    }
}

bool traces_something(const TraceSetup& setup) {
    for (const auto& e : setup.events)
        if (!e.negated) return true;
    return !setup.tracer.empty();
}

std::vector<const TraceSetup*> setups_of(const RecordOptions& o) {
    std::vector<const TraceSetup*> out;
    if (o.instances.empty() || traces_something(o.setup)) out.push_back(&o.setup);
    for (const auto& in : o.instances) out.push_back(&in);
    return out;
}

namespace {

// --tsc2nsec: the x86-tsc clock in every buffer, checked before anything changes.
Expected<std::optional<io::Tsc2Nsec>> tsc2nsec_setup(const RecordOptions& o, RecordOptions& adjusted) {
    if (!o.tsc2nsec) return std::optional<io::Tsc2Nsec>{};
    for (TraceSetup* s : [&] {
             std::vector<TraceSetup*> v{&adjusted.setup};
             for (auto& in : adjusted.instances) v.push_back(&in);
             return v;
         }()) {
        if (!s->clock.empty() && s->clock != "x86-tsc")
            return Error(Errc::invalid_argument,
                         "--tsc2nsec records with the x86-tsc clock, not " + s->clock);
        s->clock = "x86-tsc";
    }
    // Where the kernel does not publish the conversion, fail.
    auto t = read_tsc2nsec();
    if (!t) return std::move(t).error();
    return std::optional<io::Tsc2Nsec>{*t};
}

// Each buffer's sub-buffer size, clock, scratch files and one reader per CPU.
Status prepare_buffers(std::vector<BufferRun>& runs, const RecordOptions& o, uint64_t reserve) {
    for (size_t b = 0; b < runs.size(); ++b) {
        BufferRun& run = runs[b];
        const tracefs::Instance& inst = run.instance();
        auto subbuf = inst.subbuf_size();
        if (!subbuf) return std::move(subbuf).error();
        auto clock = inst.clock();
        if (!clock) return std::move(clock).error();
        run.subbuf = *subbuf;
        run.clock = *clock;
        auto files =
            CaptureFiles::create(o.output, run.session->cpus(), b == 0 ? reserve : 0, b, inst.name());
        if (!files) return std::move(files).error();
        run.files.emplace(std::move(*files));
    }
    return {};
}

Status open_readers(std::vector<BufferRun>& runs, const RecordOptions& o) {
    for (BufferRun& run : runs) {
        ReaderKnobs knobs = o.knobs;
        knobs.subbuf = run.subbuf;
        const std::vector<int>& cpus = run.session->cpus();
        for (size_t i = 0; i < cpus.size(); ++i) {
            auto c = tracefs::TracefsCpu::open(run.instance(), cpus[i], false);
            if (!c) return std::move(c).error();
            auto r = std::make_unique<CpuReader>(std::move(*c), run.files->fd(i), knobs);
            if (o.pipe_size > 0) r->cpu().set_pipe_size(o.pipe_size);
            run.readers.push_back(std::move(r));
        }
    }
    return {};
}

AssembleSpec record_spec(const RecordOptions& o, const std::vector<BufferRun>& runs) {
    std::vector<BufferData> buffers;
    for (const BufferRun& run : runs)
        buffers.push_back({run.instance().name(), run.clock, run.subbuf, run.files->files()});
    AssembleSpec spec = capture_spec(o.output, o.compression, std::move(buffers));
    spec.config.file_version = o.file_version;
    return spec;
}

// The file's metadata: formats of the recorded events (or all), 3.4's kernel sections, and the
// date offset when asked.
Expected<io::TraceMetadata> record_metadata(const RecordOptions& o, std::vector<BufferRun>& runs,
                                            const std::optional<io::Tsc2Nsec>& tsc2nsec) {
    TracingSession& first = *runs.front().session;
    const tracefs::Instance& inst = first.instance();
    const uint32_t ncpus = static_cast<uint32_t>(first.cpus().size());
    const EventSelection events = all_events(runs);
    auto meta = collect_metadata(inst, o.all_formats ? nullptr : &events, ncpus);
    if (!meta) return std::move(meta).error();
    meta->options.tsc2nsec = tsc2nsec;
    std::vector<const tracefs::Instance*> recorded;
    for (const auto& run : runs) recorded.push_back(&run.instance());
    add_kernel_sections(*meta, recorded);
    if (o.date) {
        auto clock = inst.clock();
        if (!clock) return std::move(clock).error();
        auto scratch = first.make_scratch_instance("ringscope-date-" + std::to_string(::getpid()));
        if (!scratch) return std::move(scratch).error();
        auto date = measure_date_offset(*scratch, *clock);
        (void)scratch->destroy();
        if (!date) return std::move(date).error();
        meta->options.date = std::move(*date);
    }
    return meta;
}

// What the user is told at the end: a failure while recording still leaves the file (said so),
// a failure to save or to restore names what was kept.
Expected<CaptureResult> record_outcome(const RecordOptions& o, CaptureResult res,
                                       std::optional<Error> failure, Status written, Status restored) {
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

}  // namespace

Expected<CaptureResult> record(const RecordOptions& options) {
    if (Status st = check_options(options); !st) return std::move(st).error();
    RecordOptions o = options;
    auto tsc2nsec = tsc2nsec_setup(options, o);
    if (!tsc2nsec) return std::move(tsc2nsec).error();
    // From the first change on: a signal during the setup ends the run through the normal path
    // (state restored) instead of killing the process.
    SignalScope signals;
    auto started = start_sessions(o);
    if (!started) return std::move(started).error();
    std::vector<BufferRun>& runs = *started;
    // From here on every return restores (the sessions' destructors), newest buffer first.
    struct RestoreOnExit {
        std::vector<BufferRun>& runs;
        ~RestoreOnExit() {
            for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
                it->readers.clear();
                it->session.reset();
            }
        }
    } restore_on_exit{runs};
    TracingSession& first = *runs.front().session;
    const tracefs::Instance& inst = first.instance();

    auto meta = record_metadata(o, runs, *tsc2nsec);
    if (!meta) return std::move(meta).error();

    auto subbuf = inst.subbuf_size();
    if (!subbuf) return std::move(subbuf).error();
    const uint64_t reserve = metadata_bytes(*meta) + uint64_t{4} * 64 * *subbuf * runs.size() + (256u << 10);
    if (Status st = prepare_buffers(runs, o, reserve); !st) return std::move(st).error();
    CaptureFiles& files = *runs.front().files;
    AssembleSpec spec = record_spec(o, runs);
    // Killed from here on (SIGKILL, a crash), the next command assembles the file from the head
    // and the CPU files: the journal names it.
    if (Status st = write_capture_head(spec, *meta); !st) return std::move(st).error();
    if (Status st = files.adopt_locked(io::unfinished_trace_head(o.output)); !st)
        return std::move(st).error();
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(o.output, ec);
    if (Status st = first.note_capture(ec ? o.output : abs.lexically_normal().string()); !st)
        return std::move(st).error();
    if (Status st = open_readers(runs, o); !st) return std::move(st).error();

    CaptureResult res;
    std::optional<Error> failure;
    std::atomic<bool> failed{false};
    for (auto& run : runs)
        for (auto& r : run.readers) run.threads.emplace_back([&r, &failed] { r->run(failed); });
    pid_t child = -1;
    Status on = start_tracing(runs, o, signals.old(), child);
    if (!on) failure = on.error();
    if (on) wait_for_end(signals.set(), child, failed, res);
    for (auto& run : runs) (void)run.session->set_tracing(false);
    for (auto& run : runs)
        if (auto f = drain_readers(run, o.log, res); f && !failure) failure = std::move(f);
    for (auto& run : runs)
        run.readers.clear();  // closes trace_pipe_raw: an instance cannot go while it is open
    (void)finish_metadata(*meta, inst, {}, {});
    std::vector<std::string> names;
    for (const auto& run : runs) names.push_back(run.instance().name());
    store_cpu_stats(*meta, names, res);
    Status restored = restore_all(runs, o.keep);

    for (auto& run : runs) run.files->close_fds();
    const bool disk_trouble = failure.has_value();
    if (disk_trouble) files.release_reserve();
    spec.release_copied = disk_trouble;
    Status written = assemble_trace_dat(spec, std::move(*meta));
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) it->files->remove_all();
    if (child > 0) {
        int status = 0;
        while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        res.command_status = status;
    }
    return record_outcome(o, std::move(res), std::move(failure), std::move(written), std::move(restored));
}

void print_capture_summary(FILE* out, const CaptureResult& r, const std::string& output) {
    uint64_t total = 0;
    bool several = false;
    for (const auto& c : r.cpus) several |= c.buffer != r.cpus.front().buffer;
    const std::string* last = nullptr;
    for (const auto& c : r.cpus) {
        if (several && (!last || *last != c.buffer))
            std::fprintf(out, "Buffer: %s\n", c.buffer.empty() ? "(top)" : c.buffer.c_str());
        last = &c.buffer;
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
