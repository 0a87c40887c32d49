#include "framework/capture/clock_conversion.hpp"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace ringscope::capture {

namespace {

class PerfPage {
  public:
    PerfPage() {
        perf_event_attr attr{};
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_TASK_CLOCK;
        attr.size = sizeof attr;
        fd_ = static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
        if (fd_ < 0) return;
        page_size_ = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        void* p = ::mmap(nullptr, page_size_, PROT_READ, MAP_SHARED, fd_, 0);
        if (p != MAP_FAILED) page_ = static_cast<const perf_event_mmap_page*>(p);
    }
    ~PerfPage() {
        if (page_) ::munmap(const_cast<perf_event_mmap_page*>(page_), page_size_);
        if (fd_ >= 0) ::close(fd_);
    }
    PerfPage(const PerfPage&) = delete;
    PerfPage& operator=(const PerfPage&) = delete;
    const perf_event_mmap_page* page() const noexcept { return page_; }

  private:
    int fd_ = -1;
    size_t page_size_ = 0;
    const perf_event_mmap_page* page_ = nullptr;
};

int64_t realtime_us() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

// "SECS.USECS" of the line that carries `tag`, in microseconds; -1 when the line is not there.
int64_t marker_time_us(const std::string& trace, const std::string& tag) {
    const size_t at = trace.find(": tracing_mark_write: " + tag + "\n");
    if (at == std::string::npos) return -1;
    const size_t start = trace.rfind(' ', at - 1);
    if (start == std::string::npos) return -1;
    const std::string stamp = trace.substr(start + 1, at - start - 1);
    const size_t dot = stamp.find('.');
    if (dot == std::string::npos || stamp.size() - dot - 1 != 6) return -1;
    return std::strtoll(stamp.c_str(), nullptr, 10) * 1000000 +
           std::strtoll(stamp.c_str() + dot + 1, nullptr, 10);
}

}  // namespace

Expected<io::Tsc2Nsec> read_tsc2nsec() {
    PerfPage perf;
    if (!perf.page())
        return Error(Errc::unsupported,
                     std::string("TSC to ns conversion: cannot open a perf event: ") + std::strerror(errno));
    const perf_event_mmap_page* p = perf.page();
    // The page is updated under a sequence lock: read until it is stable.
    io::Tsc2Nsec t;
    uint32_t seq;
    bool usable;
    do {
        seq = __atomic_load_n(&p->lock, __ATOMIC_ACQUIRE);
        usable = p->cap_user_time_zero;
        t.mult = p->time_mult;
        t.shift = p->time_shift;
        t.offset = p->time_zero;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
    } while (__atomic_load_n(&p->lock, __ATOMIC_ACQUIRE) != seq);
    if (!usable || t.mult == 0)
        return Error(Errc::unsupported,
                     "TSC to ns conversion is not available on this machine (perf cap_user_time_zero is 0)");
    return t;
}

Expected<std::string> measure_date_offset(const tracefs::Instance& scratch, const std::string& clock) {
    if (clock == "counter" || clock == "x86-tsc")
        return Error(Errc::unsupported, "--date needs a trace clock that counts in ns, not " + clock);
    if (!clock.empty())
        if (Status st = scratch.set_clock(clock); !st) return std::move(st).error();

    constexpr int kSamples = 8;
    std::vector<int64_t> before(kSamples), after(kSamples);
    for (int i = 0; i < kSamples; ++i) {
        before[i] = realtime_us();
        Status st = scratch.write("trace_marker", "ringscope-date " + std::to_string(i));
        after[i] = realtime_us();
        if (!st) return std::move(st).error();
    }
    auto trace = scratch.read("trace");
    if (!trace) return std::move(trace).error();
    int64_t best_width = INT64_MAX, offset = 0;
    for (int i = 0; i < kSamples; ++i) {
        const int64_t ts = marker_time_us(*trace, "ringscope-date " + std::to_string(i));
        if (ts < 0) continue;
        if (after[i] - before[i] < best_width) {
            best_width = after[i] - before[i];
            offset = before[i] + (after[i] - before[i]) / 2 - ts;
        }
    }
    if (best_width == INT64_MAX)
        return Error(Errc::corrupt,
                     "--date: the markers written to instance " + scratch.name() + " did not come back");
    char text[32];
    std::snprintf(text, sizeof text, "0x%" PRIx64, static_cast<uint64_t>(offset));
    return std::string(text);
}

}  // namespace ringscope::capture
