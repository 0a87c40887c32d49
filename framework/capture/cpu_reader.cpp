#include "framework/capture/cpu_reader.hpp"

#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace ringscope::capture {

void CpuReader::run(std::atomic<bool>& failed) {
    tid_.store(static_cast<int>(::syscall(SYS_gettid)));
    if (knobs_.rt_prio > 0) {
        sched_param sp{};
        sp.sched_priority = knobs_.rt_prio;
        if (int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp); r != 0)
            warning_ = "cannot run the reader of CPU " + std::to_string(cpu_.cpu()) + " at FIFO priority " +
                       std::to_string(knobs_.rt_prio) + ": " + std::strerror(r);
    }
    const bool poll = knobs_.sleep_us >= 0;
    while (!stop_.load(std::memory_order_acquire)) {
        const int n = cpu_.write(out_, poll);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                if (poll) ::usleep(static_cast<useconds_t>(std::max(knobs_.sleep_us, 1)));
                continue;
            }
            error_ = errno;
            failed.store(true, std::memory_order_release);
            return;
        }
        if (n == 0 && poll) ::usleep(static_cast<useconds_t>(std::max(knobs_.sleep_us, 1)));
        bytes_.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
        if (knobs_.max_kb && !trim()) {
            failed.store(true, std::memory_order_release);
            return;
        }
    }
}

void CpuReader::stop() {
    stop_.store(true, std::memory_order_release);
    cpu_.stop();
}

int CpuReader::flush_rest() {
    int total = 0;
    for (;;) {
        const int n = cpu_.flush_write(out_);
        if (n < 0) return -1;
        if (n == 0) return total;
        total += n;
        bytes_ += static_cast<uint64_t>(n);
        if (knobs_.max_kb && !trim()) return -1;
    }
}

// trace-cmd's -m switches between two files of half the limit each; here, once the file reaches
// the limit, all but its newest half-limit is cut off the front (collapsed in place where the file
// system can, else copied), so the file keeps between half the limit and the limit, the newest
// data, in whole sub-buffers. Cutting only half the limit would let one large splice (a reader
// woken at the watermark moves up to a pipe's worth) leave the file above the limit.
bool CpuReader::trim() {
    const uint64_t align = std::max<uint64_t>(knobs_.subbuf, 4096);
    const uint64_t limit = std::max<uint64_t>(knobs_.max_kb * 1024, 2 * align);
    const uint64_t size = bytes_.load();
    if (size < limit) return true;
    const uint64_t cut = (size - limit / 2) / align * align;
    if (::fallocate(out_, FALLOC_FL_COLLAPSE_RANGE, 0, static_cast<off_t>(cut)) != 0) {
        std::vector<char> buf(1 << 20);
        for (uint64_t from = cut; from < size;) {
            const ssize_t n = ::pread(out_, buf.data(), std::min<uint64_t>(buf.size(), size - from),
                                      static_cast<off_t>(from));
            if (n <= 0 ||
                ::pwrite(out_, buf.data(), static_cast<size_t>(n), static_cast<off_t>(from - cut)) != n) {
                error_ = n < 0 ? errno : EIO;
                return false;
            }
            from += static_cast<uint64_t>(n);
        }
        if (::ftruncate(out_, static_cast<off_t>(size - cut)) != 0) {
            error_ = errno;
            return false;
        }
    }
    bytes_ = size - cut;
    ::lseek(out_, 0, SEEK_END);
    return true;
}

}  // namespace ringscope::capture
