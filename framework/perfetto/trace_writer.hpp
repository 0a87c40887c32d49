// A Perfetto protobuf trace (Trace { repeated TracePacket packet = 1 }) written as the events
// stream in: per CPU stream, FtraceEventBundles of up to kBundleBytes of encoded events, so memory
// stays flat in the trace's size. Each stream is a packet sequence, and so is each input's
// metadata: its system (uname, CPUs, page size), its task names (a ProcessTree), and ftrace stats
// at the end (events dropped per CPU as the trace records them). Inputs after the first are
// machines of their own (TracePacket.machine_id), as a host's guests are. The file appears under
// its name only when finished.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <ringscope/error.hpp>
#include <ringscope/event.hpp>

namespace ringscope::engine {
class TraceFile;
}

namespace ringscope::perfetto {

class EventEncoder;

// The FtraceClock value (field::kFtraceClock*) of a trace clock as trace-cmd names it ("local",
// "x86-tsc", ...; empty when the file does not say); NANOSECONDS: its times are nanoseconds.
// traced_probes' choices (local, global, mono_raw; boot is the unset default), perf as local
// (both are the kernel's local_clock); unset for the clocks Perfetto has no value for that trace
// processor accepts (mono, tai, uptime, counter, x86-tsc, ...).
uint32_t ftrace_clock_for(std::string_view trace_clock, bool nanoseconds) noexcept;

struct WriterOptions {
    // sched_switch and sched_waking in FtraceEventBundle.CompactSched (see compact_sched.hpp).
    bool compact_sched = false;
};

class TraceWriter {
  public:
    static constexpr size_t kBundleBytes = 64 * 1024;

    static Expected<std::unique_ptr<TraceWriter>> create(const std::string& path, WriterOptions options = {});
    ~TraceWriter();

    // Declares input INPUT (0, 1, ... in order; 0 = the host) read from FILE, before its events.
    void add_input(int input, engine::TraceFile& file);
    // Declares an input with no trace.dat behind it (a plugin decoder's: an Intel PT stream's flow),
    // of CPUS CPUs: no system, task names or CPU stats; its events are written as generic events.
    void add_input(int input, int cpus);
    // Writes what is known of the input before its events (system, task names), at FIRST_TS;
    // on_event() does it on the input's first event when the caller has not.
    void begin_input(int input, std::optional<uint64_t> first_ts);

    // One CPU stream of an input (a CPU of the top buffer, the same CPU of an instance, ...): its
    // bundles, a packet sequence of its own (its interned kernel symbols) and its event encoder.
    // Streams are independent: different threads may feed different streams at once.
    class Stream;
    Stream& stream(int input, int stream);
    // An event of STREAM, in time order within the stream.
    void on_event(Stream& stream, const Event& ev);
    void on_event(int input, int stream_id, const Event& ev) { on_event(stream(input, stream_id), ev); }

    // Writes what is pending and renames the file into place.
    Status finish();

    uint64_t events() const noexcept;
    uint64_t bytes() const noexcept;

    struct Impl;

  private:
    explicit TraceWriter(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace ringscope::perfetto
