#include "framework/capture/recorder.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <thread>

#include "framework/capture/capture_files.hpp"
#include "framework/capture/clock_conversion.hpp"
#include "framework/capture/metadata.hpp"
#include "framework/capture/trace_assembler.hpp"
#include "framework/capture/tracing_session.hpp"

namespace ringscope::capture {

namespace {

struct Reader {
    Reader(tracefs::TracefsCpu c, int fd) : cpu(std::move(c)), out(fd) {}
    tracefs::TracefsCpu cpu;
    int out = -1;
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> bytes{0};
    int error = 0;  // errno of the failed write; read after join
};

void reader_loop(Reader& r, std::atomic<bool>& failed) {
    while (!r.stop.load(std::memory_order_acquire)) {
        const int n = r.cpu.write(r.out, false);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            r.error = errno;
            failed.store(true, std::memory_order_release);
            return;
        }
        r.bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    }
}

uint64_t metadata_bytes(const io::TraceMetadata& m) {
    uint64_t n = m.header_page.size() + m.header_event.size() + m.kallsyms.size() + m.printk_formats.size();
    for (const auto& f : m.ftrace_formats) n += f.size() + 16;
    for (const auto& s : m.event_systems)
        for (const auto& f : s.formats) n += f.size() + 16;
    return n;
}

// Signals the capture waits for; blocked in every thread so that only sigtimedwait() sees them.
class SignalScope {
  public:
    SignalScope() {
        sigemptyset(&set_);
        for (int s : {SIGINT, SIGTERM, SIGCHLD}) sigaddset(&set_, s);
        pthread_sigmask(SIG_BLOCK, &set_, &old_);
    }
    ~SignalScope() {
        // Drop what arrived while saving (a second Ctrl-C must not kill the finished run).
        timespec zero{0, 0};
        siginfo_t info;
        while (sigtimedwait(&set_, &info, &zero) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    const sigset_t& set() const noexcept { return set_; }
    const sigset_t& old() const noexcept { return old_; }

  private:
    sigset_t set_, old_;
};

pid_t spawn(const std::vector<std::string>& command, const sigset_t& mask) {
    std::vector<char*> argv;
    for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        pthread_sigmask(SIG_SETMASK, &mask, nullptr);
        ::execvp(argv[0], argv.data());
        std::fprintf(stderr, "ringscope record: cannot run %s: %s\n", argv[0], std::strerror(errno));
        ::_exit(127);
    }
    return pid;
}

Status collect_stats(const tracefs::Instance& inst, CaptureResult& res) {
    for (auto& c : res.cpus) {
        auto s = inst.cpu_stats(c.cpu);
        if (!s) return std::move(s).error();
        c.stats = std::move(*s);
    }
    return {};
}

}  // namespace

Expected<CaptureResult> record(const RecordOptions& o) {
    if (o.events.empty()) return Error(Errc::invalid_argument, "no events given (-e EVENT)");
    std::string clock_name = o.clock;
    std::optional<io::Tsc2Nsec> tsc2nsec;
    if (o.tsc2nsec) {
        if (!clock_name.empty() && clock_name != "x86-tsc")
            return Error(Errc::invalid_argument,
                         "--tsc2nsec records with the x86-tsc clock, not " + clock_name);
        clock_name = "x86-tsc";
        // Checked before anything changes: where the kernel does not publish the conversion, fail.
        auto t = read_tsc2nsec();
        if (!t) return std::move(t).error();
        tsc2nsec = *t;
    }
    // From the first change on: a Ctrl-C during the setup ends the run through the normal path
    // (state restored) instead of killing the process.
    SignalScope signals;
    TraceSetup setup{o.tracefs_root, o.instance, o.events, o.buffer_kb, clock_name};
    auto session = TracingSession::start(setup);
    if (!session) return std::move(session).error();
    TracingSession& sess = **session;
    const tracefs::Instance& inst = sess.instance();
    const std::vector<int>& cpus = sess.cpus();

    auto meta = collect_metadata(inst, &sess.events(), static_cast<uint32_t>(cpus.size()));
    if (!meta) return std::move(meta).error();  // the session's destructor restores
    auto subbuf = inst.subbuf_size();
    if (!subbuf) return std::move(subbuf).error();
    auto clock = inst.clock();
    if (!clock) return std::move(clock).error();
    meta->options.tsc2nsec = tsc2nsec;
    if (o.date) {
        auto date = measure_date_offset(inst.root(), *clock);
        if (!date) return std::move(date).error();
        meta->options.date = std::move(*date);
    }

    const uint64_t reserve = metadata_bytes(*meta) + uint64_t{4} * 64 * *subbuf + (256u << 10);
    auto files = CaptureFiles::create(o.output, cpus, reserve);
    if (!files) return std::move(files).error();

    std::vector<std::unique_ptr<Reader>> readers;
    for (size_t i = 0; i < cpus.size(); ++i) {
        auto c = tracefs::TracefsCpu::open(inst, cpus[i], false);
        if (!c) return std::move(c).error();
        auto r = std::make_unique<Reader>(std::move(*c), files->fd(i));
        if (o.pipe_size > 0) r->cpu.set_pipe_size(o.pipe_size);
        readers.push_back(std::move(r));
    }

    CaptureResult res;
    std::optional<Error> failure;
    {
        std::atomic<bool> failed{false};
        std::vector<std::thread> threads;
        for (auto& r : readers) threads.emplace_back(reader_loop, std::ref(*r), std::ref(failed));
        Status on = sess.set_tracing(true);
        pid_t child = -1;
        if (on && !o.command.empty()) child = spawn(o.command, signals.old());
        if (!on) failure = on.error();

        // Wait for the command, a signal, or a reader that failed.
        while (on && !failed.load()) {
            timespec tick{0, 50 * 1000 * 1000};
            siginfo_t info;
            const int sig = sigtimedwait(&signals.set(), &info, &tick);
            if (sig == SIGINT || sig == SIGTERM) {
                res.interrupted = true;
                if (child > 0) ::kill(child, sig);
                break;
            }
            if (child > 0) {
                int status = 0;
                if (::waitpid(child, &status, WNOHANG) == child) {
                    res.command_status = status;
                    child = -1;
                    break;
                }
            }
        }

        (void)sess.set_tracing(false);
        for (auto& r : readers) {
            r->stop.store(true, std::memory_order_release);
            r->cpu.stop();
        }
        for (auto& t : threads) t.join();
        for (size_t i = 0; i < readers.size(); ++i) {
            Reader& r = *readers[i];
            if (r.error) {
                if (!failure)
                    failure = Error(Errc::io, std::string("writing CPU ") + std::to_string(cpus[i]) +
                                                  " data failed: " + std::strerror(r.error))
                                  .in_file(files->files()[i].path)
                                  .at_offset(static_cast<int64_t>(r.bytes.load()));
                continue;  // nothing more goes to a file that failed
            }
            for (;;) {
                const int n = r.cpu.flush_write(r.out);
                if (n > 0) {
                    r.bytes += static_cast<uint64_t>(n);
                    continue;
                }
                if (n < 0 && !failure)
                    failure = Error(Errc::io, std::string("flushing CPU ") + std::to_string(cpus[i]) +
                                                  " failed: " + std::strerror(errno))
                                  .in_file(files->files()[i].path)
                                  .at_offset(static_cast<int64_t>(r.bytes.load()));
                break;
            }
        }
        for (size_t i = 0; i < cpus.size(); ++i) res.cpus.push_back({cpus[i], readers[i]->bytes.load(), {}});
        Status st = collect_stats(inst, res);
        if (!st && !failure) failure = st.error();
        readers.clear();  // closes trace_pipe_raw: the instance cannot go while it is open
        (void)finish_metadata(*meta, inst, cpus, [&] {
            std::vector<tracefs::CpuStats> v;
            for (const auto& c : res.cpus) v.push_back(c.stats);
            return v;
        }());
        Status restored = sess.restore();

        files->close_fds();
        const bool disk_trouble = failure.has_value();
        if (disk_trouble) files->release_reserve();
        AssembleSpec spec;
        spec.output = o.output;
        spec.config.compression = o.compression;
        spec.buffer_name = o.instance;
        spec.clock = *clock;
        spec.subbuf_size = *subbuf;
        spec.cpus = files->files();
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
                e = Error(e.code(),
                          failure->to_string() + "; then saving the trace failed: " + e.to_string());
            return e;
        }
        if (!restored)
            return Error(restored.error().code(),
                         "the trace was saved to " + o.output +
                             ", but restoring the tracing state failed: " + restored.error().to_string());
    }
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
