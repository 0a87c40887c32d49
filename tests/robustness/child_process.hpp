// Runs a program with a time bound and tells apart a clean exit, a crash (signal), a sanitizer report
// and a hang. Used by the corruption sweep and the plugin fault tests, which run the real CLI.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include "tests/support/file_text.hpp"

namespace ringscope::testing {

using ringscope::test::read_file;

// Exit codes the sanitizers are told to use in the child, so that a report is never mistaken for
// the program's own error exit (1).
inline constexpr int kAsanExit = 86;
inline constexpr int kUbsanExit = 87;

struct ChildResult {
    bool timed_out = false;
    bool signaled = false;
    int signal = 0;
    int exit_code = -1;
    double seconds = 0;
    std::string out;  // empty when stdout was discarded
    std::string err;

    bool sanitizer_report() const {
        return exit_code == kAsanExit || exit_code == kUbsanExit ||
               err.find("ERROR: AddressSanitizer") != std::string::npos ||
               err.find("runtime error:") != std::string::npos ||
               err.find("ERROR: LeakSanitizer") != std::string::npos;
    }
    // What went wrong at the process level, or "" for a normal exit.
    std::string fault() const {
        if (timed_out) return "hang (killed after " + std::to_string(seconds) + " s)";
        if (signaled) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
        if (sanitizer_report()) return "sanitizer report";
        return {};
    }
};

// Runs ARGV (argv[0] is the program path) with EXTRA_ENV ("NAME=value") added; stdout goes to
// OUT_PATH (or /dev/null when empty), stderr to ERR_PATH. Kills it after TIMEOUT.
inline ChildResult run_child(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                             std::chrono::milliseconds timeout, const std::string& out_path,
                             const std::string& err_path) {
    ChildResult r;
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid < 0) {
        r.exit_code = -1;
        r.err = "fork failed";
        return r;
    }
    if (pid == 0) {
        int out = open(out_path.empty() ? "/dev/null" : out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0) _exit(127);
        dup2(out, 1);
        dup2(err, 2);
        for (const auto& e : extra_env) putenv(const_cast<char*>(e.c_str()));
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (std::chrono::steady_clock::now() - start > timeout) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            r.timed_out = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r.timed_out) {
        if (WIFSIGNALED(status)) {
            r.signaled = true;
            r.signal = WTERMSIG(status);
        } else if (WIFEXITED(status)) {
            r.exit_code = WEXITSTATUS(status);
        }
    }
    if (!out_path.empty()) r.out = read_file(out_path);
    r.err = read_file(err_path);
    return r;
}

// Sanitizer settings for a child: keep the caller's, but make a report exit with our codes.
inline std::vector<std::string> sanitizer_env() {
    std::string asan = "ASAN_OPTIONS=";
    if (const char* a = std::getenv("ASAN_OPTIONS")) asan += std::string(a) + ":";
    asan += "abort_on_error=0:exitcode=" + std::to_string(kAsanExit);
    std::string ubsan = "UBSAN_OPTIONS=";
    if (const char* u = std::getenv("UBSAN_OPTIONS")) ubsan += std::string(u) + ":";
    ubsan += "halt_on_error=1:print_stacktrace=1:exitcode=" + std::to_string(kUbsanExit);
    return {asan, ubsan};
}

}  // namespace ringscope::testing
