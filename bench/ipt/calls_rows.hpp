// ipt_flow_bench's rows for `ipt calls` and `ipt profile`: the command run in process on the
// benchmark's files (as flow-j1 runs `ipt flow`), and its libipt-based reference
// (bench/reference/calls_libipt.c: libipt 2.0.5's instruction decoder, the same call tree and the
// same output) run as a child process. Both outputs are hashed, so that a row can say whether
// ours printed exactly what the reference printed.
#pragma once

#include <cstdint>
#include <string>

namespace ringscope::ipt::bench {

struct CallsFiles {
    std::string code, pt, kallsyms;
    uint64_t address = 0;
};

struct CallsRun {
    double seconds = 0, wall = 0;  // CPU time (the thread's, or the child's user + system) and wall
    uint64_t hash = 0;             // FNV-1a of the output
    uint64_t lines = 0;
    bool failed = false;  // a non-zero exit, or the reference could not run
};

// `ringscope ipt calls` (calls) or `ipt profile` with --kallsyms on the files, and --time with time.
CallsRun calls_command(bool calls, const CallsFiles& f, bool time);
// The reference at path with the same arguments.
CallsRun calls_reference(const std::string& path, bool calls, const CallsFiles& f, bool time);

}  // namespace ringscope::ipt::bench
