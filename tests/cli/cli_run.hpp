// Runs `ringscope ARGS` from the build tree and captures its exit code, stdout and stderr.
#pragma once

#include <string>
#include <vector>

namespace ringscope::cli_test {

struct Outcome {
    int status = -1;  // the exit code; -1 when it did not exit normally (a crash)
    std::string out, err;
};

// ARGS is a shell word list (quote what needs it); runs in `cwd` when given.
Outcome ringscope(const std::string& args, const std::string& cwd = "");
std::string trace(const std::string& name);   // tests/data/traces/NAME
std::string source(const std::string& path);  // the source tree's PATH
std::vector<std::string> lines(const std::string& text);
// The shared KVM fixture (absent on some machines: the caller skips).
std::string shared_kvm_trace();

}  // namespace ringscope::cli_test
