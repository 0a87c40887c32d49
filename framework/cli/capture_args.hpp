// trace-cmd record's command line, for `record`, `start` and `stream` (see `man trace-cmd-record`):
// getopt-style, order kept (-f filters the -e before it, -v negates the -e after it), stopping at
// the first word that is not an option (or "--"): the COMMAND.
#pragma once

#include <string>
#include <vector>

#include "framework/capture/recorder.hpp"
#include "framework/cli/cli_context.hpp"

namespace ringscope::cli {

enum class CaptureCommand { record, start, stream };

// Returns -1 to go on, else the exit code to return now (0 after --help, kExitUsage with the
// reason trace-cmd gives for the combinations it refuses).
int parse_capture_args(CliContext& ctx, CaptureCommand which, const std::vector<std::string>& args,
                       capture::RecordOptions& out);

// "none" / "zlib" / "zstd" (also used by extract).
bool parse_compression(const std::string& s, io::Compression& out);

}  // namespace ringscope::cli
