// marker_writer FILE N [RATE]: writes "n=0\n" .. "n=N-1\n" to FILE (a trace_marker), one write
// each, as fast as possible or about RATE lines per second. The tests' and benchmark's workload.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static double now() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s FILE N [RATE]\n", argv[0]);
        return 2;
    }
    const int fd = open(argv[1], O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        std::fprintf(stderr, "%s: %s\n", argv[1], std::strerror(errno));
        return 1;
    }
    const long n = std::atol(argv[2]);
    const double rate = argc > 3 ? std::atof(argv[3]) : 0;
    const double start = now();
    char line[32];
    for (long i = 0; i < n; ++i) {
        // Paced in batches of 64: sleeping per line would cap the rate at the timer resolution.
        if (rate > 0 && (i & 63) == 0) {
            const double due = start + static_cast<double>(i) / rate;
            const double wait = due - now();
            if (wait > 0) usleep(static_cast<useconds_t>(wait * 1e6));
        }
        const int len = std::snprintf(line, sizeof line, "n=%ld\n", i);
        if (write(fd, line, static_cast<size_t>(len)) != len) {
            std::fprintf(stderr, "write %ld: %s\n", i, std::strerror(errno));
            return 1;
        }
    }
    const double secs = now() - start;
    std::fprintf(stderr, "marker_writer: %ld lines in %.3f s (%.0f/s)\n", n, secs, secs > 0 ? n / secs : 0.0);
    close(fd);
    return 0;
}
