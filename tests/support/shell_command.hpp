// A shell command line's stdout and exit code, for the tests that drive the CLI and the example
// programs from the build tree.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace ringscope::test {

struct ShellResult {
    int status = -1;  // the exit code; -1 when the command did not exit normally
    std::string out;
};

// CMD through /bin/sh; stderr is not captured unless CMD redirects it.
inline ShellResult run_shell(const std::string& cmd) {
    ShellResult r;
    std::FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) return r;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    const int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

}  // namespace ringscope::test
