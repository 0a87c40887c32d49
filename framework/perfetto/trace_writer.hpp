// A Perfetto protobuf trace (Trace { repeated TracePacket packet = 1 }) written as the events
// stream in: per CPU stream, FtraceEventBundles of up to kBundleBytes of encoded events, so memory
// stays flat in the trace's size. Each input is one packet sequence; inputs after the first are
// machines of their own (TracePacket.machine_id), as a host's guests are. Per input: its system
// (uname, CPUs, page size), its task names (a ProcessTree), and ftrace stats at the end (events
// dropped per CPU as the trace records them). The file appears under its name only when finished.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <ringscope/error.hpp>
#include <ringscope/event.hpp>

namespace ringscope::engine {
class TraceFile;
}

namespace ringscope::perfetto {

class TraceWriter {
  public:
    static constexpr size_t kBundleBytes = 64 * 1024;

    static Expected<std::unique_ptr<TraceWriter>> create(const std::string& path);
    ~TraceWriter();

    // Declares input INPUT (0, 1, ... in order; 0 = the host) read from FILE, before its events.
    void add_input(int input, const engine::TraceFile& file);
    // One event of INPUT; STREAM tells apart the CPU streams of the input (a CPU of the top buffer
    // and the same CPU of an instance are two streams). Events of a stream come in time order.
    void on_event(int input, int stream, const Event& ev);
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
