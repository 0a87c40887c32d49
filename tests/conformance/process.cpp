#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace ringscope::conformance {
namespace {

std::vector<std::string> oracle_environment() {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        std::string_view v(*e);
        if (v.starts_with("HOME=") || v.starts_with("LC_ALL=") || v.starts_with("TRACEEVENT_PLUGIN_DIR="))
            continue;
        env.emplace_back(v);
    }
    env.emplace_back("HOME=/nonexistent");
    env.emplace_back("LC_ALL=C");
    return env;
}

}  // namespace

RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const std::string& cwd, int timeout_seconds) {
    RunResult r;
    int out_pipe[2];
    int err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0) {
        r.error = std::string("pipe: ") + std::strerror(errno);
        return r;
    }
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        r.error = std::string("pipe: ") + std::strerror(errno);
        close(out_pipe[0]);
        close(out_pipe[1]);
        return r;
    }
    // Everything exec needs is prepared before fork (no allocation in the child).
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<std::string> env_strings = oracle_environment();
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);

    pid_t pid = fork();
    if (pid < 0) {
        r.error = std::string("fork: ") + std::strerror(errno);
        return r;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        if (chdir(cwd.c_str()) != 0) _exit(126);
        execve(program.c_str(), argv.data(), envp.data());
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                          std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            r.timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        int n = poll(fds, 2, static_cast<int>(left.count()));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        for (auto& p : fds) {
            if (p.fd < 0 || (p.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
            ssize_t got = read(p.fd, buf, sizeof buf);
            if (got > 0) {
                if (p.fd == out_pipe[0]) {
                    r.out.append(buf, static_cast<size_t>(got));
                } else if (r.err.size() < 65536) {
                    r.err.append(buf, static_cast<size_t>(got));
                }
            } else if (got == 0 || errno != EINTR) {
                close(p.fd);
                p.fd = -1;
                --open_fds;
            }
        }
    }
    for (auto& p : fds) {
        if (p.fd >= 0) close(p.fd);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) {
        r.exit_code = WEXITSTATUS(status);
        if (r.exit_code == 127 && r.out.empty()) r.error = "could not execute " + program;
    } else if (WIFSIGNALED(status)) {
        r.exit_code = 128 + WTERMSIG(status);
    }
    return r;
}

std::string find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t colon = dirs.find(':', start);
        std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        if (!dir.empty()) {
            std::string candidate = dir + "/" + name;
            if (access(candidate.c_str(), X_OK) == 0) return candidate;
        }
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    return "";
}

RunResult run_oracle(const std::string& program, const std::vector<std::string>& args, const std::string& cwd,
                     int timeout_seconds) {
    RunResult first = run_program(program, args, cwd, timeout_seconds);
    if (!first.error.empty() || first.timed_out) return first;
    RunResult second = run_program(program, args, cwd, timeout_seconds);
    if (second.out == first.out && second.exit_code == first.exit_code) return first;
    RunResult third = run_program(program, args, cwd, timeout_seconds);
    return third.out == second.out && third.exit_code == second.exit_code ? second : first;
}

}  // namespace ringscope::conformance
