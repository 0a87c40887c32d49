// `ringscope record` and `ringscope extract`: capture the ring buffers of tracefs into a trace.dat.
//
// record: one reader thread per CPU splices whole sub-buffers into OUTPUT.cpuN while the events
// are on; it stops when COMMAND exits, on SIGINT/SIGTERM, or when writing fails (a full disk);
// then tracing is turned off, every CPU is flushed, the tracing state is restored and the trace.dat
// is assembled with its metadata. Nothing needs /proc/sys/kernel/ftrace_enabled.
#pragma once

#include <signal.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/tracefs.hpp>

#include "framework/capture/cpu_reader.hpp"
#include "framework/capture/tracing_session.hpp"
#include "framework/io/trace_dat_types.hpp"

namespace ringscope::capture {

struct RecordOptions {
    TraceSetup setup;  // -e/-f/-v, -B, -b, -C, -p, -l/-n/-g, -P/-c, -O/-T, -M, --max-graph-depth, -i
    // More buffers, as trace-cmd record's -B NAME after other options: each instance with the
    // options that followed its -B. `setup` is then the top buffer's, recorded only when it
    // traces something (an event or a tracer).
    std::vector<TraceSetup> instances;
    bool tsc2nsec = false;  // --tsc2nsec: x86-tsc clock, TSC2NSEC option (fails where unsupported)
    bool date = false;      // --date: DATE option (trace clock -> wall clock offset)
    std::string output = "trace.dat";
    io::Compression compression = io::Compression::zstd;
    uint32_t file_version = 7;         // --file-version: 6 (uncompressed, buffer options) or 7
    std::vector<std::string> command;  // run while recording; empty = until SIGINT/SIGTERM/SIGHUP
    bool filter_task = false;          // -F: only COMMAND (and with -c its children) is traced
    bool no_filter = false;            // --no-filter: the reader threads' own events are kept
    bool all_formats = false;          // -a: every event format goes in the file
    bool keep = false;                 // -k: the tracing state is left as the recording set it
    ReaderKnobs knobs;                 // -s, -r, -m
    int pipe_size = 1 << 20;           // splice pipe per reader: how much one wake-up moves
    FILE* log = stderr;                // the end-of-run summary and warnings; nullptr = quiet
};

struct CpuCapture {
    std::string buffer;  // "" = the top buffer
    int cpu = 0;
    uint64_t bytes = 0;  // raw data captured (whole sub-buffers)
    tracefs::CpuStats stats;
};

struct CaptureResult {
    std::vector<CpuCapture> cpus;
    bool interrupted = false;  // SIGINT/SIGTERM/SIGHUP/SIGPIPE
    int signal = 0;            // which
    int command_status = -1;   // waitpid status of COMMAND, -1 when none ran
    uint64_t lost() const noexcept {
        uint64_t n = 0;
        for (const auto& c : cpus) n += c.stats.lost();
        return n;
    }
};

// Whether SETUP enables an event or a tracer (trace-cmd leaves out a top buffer that does not).
bool traces_something(const TraceSetup& setup);
// The buffers a record sets up, in file order: the top one (when it traces something or is the
// only one), then each -B instance.
std::vector<const TraceSetup*> setups_of(const RecordOptions& options);

// Errors: tracefs missing or not writable, an instance that exists, an event that matches nothing,
// a write that failed (ENOSPC...). In every case the tracing state is restored first, and when the
// recording itself had started, the trace.dat holds what was captured up to the failure (the
// error's message says so).
Expected<CaptureResult> record(const RecordOptions& options);

struct ExtractOptions {
    std::vector<std::string> instances;  // -B (several), or every instance with -a
    bool all = false;                    // -a: every instance (instances_names of the root)
    bool top = false;                    // -t: the top buffer too (it alone without -B/-a)
    std::string output = "trace.dat";
    io::Compression compression = io::Compression::zstd;
    std::string tracefs_root;
    FILE* log = stderr;
};

// Saves what the buffers hold now (consuming it, as trace-cmd extract does). Tracing is left as it
// is; every event format goes in.
Expected<CaptureResult> extract(const ExtractOptions& options);

// Blocks SIGINT/TERM/HUP/PIPE/CHLD in the calling thread (and the threads it starts), so that
// they only end a capture through sigtimedwait()/signalfd and the state is restored; drops the
// pending ones and unblocks at the end.
class SignalScope {
  public:
    SignalScope();
    ~SignalScope();
    SignalScope(const SignalScope&) = delete;
    SignalScope& operator=(const SignalScope&) = delete;
    const sigset_t& set() const noexcept { return set_; }
    const sigset_t& old() const noexcept { return old_; }

  private:
    sigset_t set_, old_;
};

// The per-CPU stats into the file's CPUSTAT options, as trace-cmd writes them: the first buffer's
// CPUs, then for each next buffer a "Buffer: NAME" option and its CPUs. BUFFERS in file order.
void store_cpu_stats(io::TraceMetadata& meta, const std::vector<std::string>& buffers,
                     const CaptureResult& res);

// The end-of-run lines: per CPU what was captured and what the kernel lost.
void print_capture_summary(FILE* out, const CaptureResult& r, const std::string& output);

}  // namespace ringscope::capture
