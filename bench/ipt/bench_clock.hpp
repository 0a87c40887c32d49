// The clocks of the Intel PT benchmarks: CPU time of the calling thread, and one timed run.
#pragma once

#include <chrono>
#include <ctime>

namespace ringscope::ipt::bench {

inline double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// f()'s result with its .seconds (this thread's CPU time) and .wall set.
template <class F>
auto run_once(F&& f) {
    auto w0 = std::chrono::steady_clock::now();
    double t0 = cpu_seconds();
    auto r = f();
    r.seconds = cpu_seconds() - t0;
    r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    return r;
}

}  // namespace ringscope::ipt::bench
