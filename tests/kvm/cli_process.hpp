// Runs a shell command line and captures its stdout, for the kvm tests that drive the CLI and the
// example programs from the build tree.
#pragma once

#include <string>
#include <vector>

namespace kvm_test {

struct Proc {
    int status = -1;  // exit code, -1 when the command did not exit normally
    std::string out;
};

Proc run(const std::string& cmd);

std::vector<std::string> split_lines(const std::string& s);

}  // namespace kvm_test
