#include "calls_rows.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <vector>

#include "bench_clock.hpp"
#include "ipt/calls.hpp"

namespace ringscope::ipt::bench {
namespace {

// The hash and line count of a stream of bytes, a piece at a time.
struct Digest {
    uint64_t hash = 0xcbf29ce484222325ull;
    uint64_t lines = 0;
    double seconds = 0, wall = 0;  // this thread's CPU time and the wall time in add()
    void add(const char* p, size_t n) {
        for (size_t k = 0; k < n; ++k) {
            hash = (hash ^ static_cast<uint8_t>(p[k])) * 0x100000001b3ull;
            lines += p[k] == '\n';
        }
    }
};

std::string raw_arg(const CallsFiles& f) {
    char at[32];
    std::snprintf(at, sizeof at, ":0x%" PRIx64, f.address);
    return f.code + at;
}

}  // namespace

CallsRun calls_command(bool calls, const CallsFiles& f, bool time) {
    // A stdio stream whose writes are hashed, not kept (calls prints hundreds of MB).
    Digest digest;
    cookie_io_functions_t io{};
    io.write = [](void* cookie, const char* p, size_t n) -> ssize_t {
        // The hashing is the benchmark's, not the command's: its time is taken off.
        Digest& d = *static_cast<Digest*>(cookie);
        const auto w0 = std::chrono::steady_clock::now();
        const double t0 = cpu_seconds();
        d.add(p, n);
        d.seconds += cpu_seconds() - t0;
        d.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        return static_cast<ssize_t>(n);
    };
    std::FILE* out = fopencookie(&digest, "w", io);
    std::FILE* err = std::fopen("/dev/null", "w");
    if (!out || !err) std::abort();
    std::vector<std::string> args = {"--kallsyms", f.kallsyms, "--raw", raw_arg(f), "--pt", f.pt};
    if (time) args.insert(args.begin(), "--time");
    CallsRun r = run_once([&] {
        CallsRun one;
        one.failed = (calls ? calls_main(args, out, err) : profile_main(args, out, err)) != 0;
        std::fflush(out);
        return one;
    });
    std::fclose(out);
    std::fclose(err);
    r.seconds -= digest.seconds;
    r.wall -= digest.wall;
    r.hash = digest.hash;
    r.lines = digest.lines;
    return r;
}

CallsRun calls_reference(const std::string& path, bool calls, const CallsFiles& f, bool time) {
    CallsRun r;
    int fds[2];
    if (pipe(fds) != 0) std::abort();
    const std::string raw = raw_arg(f);
    std::vector<const char*> argv = {path.c_str(), calls ? "calls" : "profile"};
    if (time) argv.push_back("--time");
    for (const char* a : {"--raw", raw.c_str(), "--kallsyms", f.kallsyms.c_str(), "--pt", f.pt.c_str()})
        argv.push_back(a);
    argv.push_back(nullptr);
    const auto w0 = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid < 0) std::abort();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv(path.c_str(), const_cast<char* const*>(argv.data()));
        _exit(127);
    }
    close(fds[1]);
    Digest digest;
    std::vector<char> buf(1 << 16);
    for (ssize_t n; (n = read(fds[0], buf.data(), buf.size())) > 0;)
        digest.add(buf.data(), static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    rusage ru{};
    if (wait4(pid, &status, 0, &ru) != pid) std::abort();
    r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
    };
    r.seconds = seconds(ru.ru_utime) + seconds(ru.ru_stime);
    r.failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    r.hash = digest.hash;
    r.lines = digest.lines;
    return r;
}

}  // namespace ringscope::ipt::bench
