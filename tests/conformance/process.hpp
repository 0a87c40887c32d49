// Runs a program and captures its stdout, with a time limit.
#pragma once

#include <string>
#include <vector>

namespace ringscope::conformance {

struct RunResult {
    std::string out;     // stdout
    std::string err;     // stderr (first 64 KB)
    int exit_code = -1;  // exit status, or 128 + signal number
    bool timed_out = false;
    std::string error;  // could not start at all (errno text)
};

// Runs `program args...` in directory `cwd` with the caller's environment, except HOME=/nonexistent
// (no ~/.trace-cmd plugins), LC_ALL=C and no TRACEEVENT_PLUGIN_DIR: the environment the oracles were
// made in. Kills the process after `timeout_seconds`.
RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const std::string& cwd, int timeout_seconds);

// run_program for an oracle that is not always the same: what two of three runs print (a third
// run only when the first two differ). trace-cmd 3.1.6 parses an empty TRACECLOCK option from
// the bytes past it on its heap: on wsdias_funcgraph_i386.dat about 1 run in 200 prints raw
// counter timestamps.
RunResult run_oracle(const std::string& program, const std::vector<std::string>& args, const std::string& cwd,
                     int timeout_seconds);

// The first executable named `name` on PATH, or "" when there is none.
std::string find_on_path(const std::string& name);

}  // namespace ringscope::conformance
