// A recording killed (SIGKILL, a crash) before it wrote its trace.dat leaves OUTPUT.head (the
// metadata and buffer layout, written before tracing went on) and OUTPUT.cpuN (whole sub-buffers,
// as the readers spliced them). recover_capture() assembles them into OUTPUT as record would have:
// each CPU up to its last whole sub-buffer. The killed record's journal names OUTPUT, so the next
// command that replays the journal does it; `ringscope record --recover OUTPUT` does it by hand.
#pragma once

#include <cstdint>
#include <string>

#include <ringscope/error.hpp>

#include "framework/capture/trace_assembler.hpp"

namespace ringscope::capture {

// Writes OUTPUT.head: SPEC's layout (spec.output is the final output) with METADATA, no data.
Status write_capture_head(AssembleSpec spec, io::TraceMetadata metadata);

struct RecoveredCapture {
    size_t cpus = 0;
    uint64_t bytes = 0;  // CPU data now in OUTPUT
};

// Errc::not_found when OUTPUT.head does not exist (nothing to recover: the recording finished).
// Other errors name the head or CPU file (and the offset). On success the scratch files are gone.
Expected<RecoveredCapture> recover_capture(const std::string& output);

}  // namespace ringscope::capture
