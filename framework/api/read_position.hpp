// How far a Trace's forward iteration has read its CPU data, for progress bars with an ETA (the
// merged iteration has no single byte offset): the ring-buffer bytes (uncompressed) of the CPUs of
// the top buffer, and those of the pages loaded so far. Zero totals before the first iteration.
#pragma once

#include <cstdint>

#include <ringscope/trace.hpp>

namespace ringscope::engine {
class TraceFile;
}

namespace ringscope::api {

struct ReadPosition {
    uint64_t bytes_loaded = 0;
    uint64_t bytes_total = 0;
    uint64_t pages_total = 0;
};

ReadPosition read_position(Trace& trace);

// The engine's file behind a Trace (framework code that needs more than the SDK shows).
engine::TraceFile& trace_file(Trace& trace);

// Pages of CPU data loaded by every iteration of the process, all traces together.
uint64_t pages_loaded_in_process() noexcept;

}  // namespace ringscope::api
