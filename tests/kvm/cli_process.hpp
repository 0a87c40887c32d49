// Runs a shell command line and captures its stdout, for the kvm tests that drive the CLI and the
// example programs from the build tree.
#pragma once

#include <string>
#include <vector>

#include "tests/support/shell_command.hpp"

namespace kvm_test {

using Proc = ringscope::test::ShellResult;
inline Proc run(const std::string& cmd) {
    return ringscope::test::run_shell(cmd);
}

std::vector<std::string> split_lines(const std::string& s);

}  // namespace kvm_test
