// Shared by the live-capture tests: the machine-wide tracefs lock, the writability probe, running
// the CLI and reading files.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <ringscope/tracefs.hpp>
#include "tests/support/file_text.hpp"

namespace rs_tracefs_test {

using ringscope::test::read_file;

// Recordings of colleagues and tests serialize on this lock.
class TracefsLock {
  public:
    TracefsLock() {
        fd_ = ::open("/tmp/tracefs.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd_ >= 0) ::flock(fd_, LOCK_EX);
    }
    ~TracefsLock() {
        if (fd_ >= 0) ::close(fd_);
    }

  private:
    int fd_ = -1;
};

inline std::string unique_name(const char* what) {
    static int counter = 0;
    return std::string("rs_") + what + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
}

// The tracefs root when instances can be created there, else "" and why.
inline std::string writable_tracefs(std::string& why) {
    auto root = ringscope::tracefs::find_tracefs(false);
    if (!root) {
        why = root.error().to_string();
        return {};
    }
    auto inst = ringscope::tracefs::Instance::create(unique_name("probe"), *root);
    if (!inst) {
        why = inst.error().to_string();
        return {};
    }
    (void)inst->destroy();
    return *root;
}

#define REQUIRE_TRACEFS(root)                                                \
    std::string root;                                                        \
    {                                                                        \
        std::string why_;                                                    \
        root = rs_tracefs_test::writable_tracefs(why_);                      \
        if (root.empty()) {                                                  \
            GTEST_SKIP() << "tracefs is not writable here (" << why_ << ")"; \
        }                                                                    \
    }

// Runs a shell command; the exit status (or 128+signal).
inline int sh(const std::string& cmd) {
    const int st = std::system(cmd.c_str());
    if (st == -1) return -1;
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return 128 + WTERMSIG(st);
}

inline bool have_trace_cmd() {
    return sh("trace-cmd -h > /dev/null 2>&1") != 127;
}

// A fresh scratch directory under the build tree.
inline std::string scratch_dir(const std::string& name) {
    std::string d = std::string(RINGSCOPE_BINARY_DIR) + "/tests/tracefs-scratch/" + name;
    sh("rm -rf '" + d + "' && mkdir -p '" + d + "'");
    return d;
}

inline bool instance_exists(const std::string& root, const std::string& name) {
    return ::access((root + "/instances/" + name).c_str(), F_OK) == 0;
}

// Forks `ringscope ARGS...` with stdout/stderr to files; returns the pid.
inline pid_t spawn(const std::string& dir, const std::vector<std::string>& args,
                   const std::string& out_name) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setenv("RINGSCOPE_JOURNAL_DIR", (dir + "/journal").c_str(), 1);
        std::freopen((dir + "/" + out_name + ".err").c_str(), "w", stderr);
        std::freopen((dir + "/" + out_name + ".out").c_str(), "w", stdout);
        std::vector<char*> argv{const_cast<char*>("ringscope")};
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(RINGSCOPE_BIN, argv.data());
        ::_exit(127);
    }
    return pid;
}

// Waits up to 20 s for PID to end (then kills it and fails the test); its status.
inline int wait_exit(pid_t pid) {
    int status = 0;
    for (int i = 0; i < 1000; ++i) {
        if (::waitpid(pid, &status, WNOHANG) == pid) return status;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    ADD_FAILURE() << "the command did not end within 20 s of the signal";
    return status;
}

}  // namespace rs_tracefs_test
