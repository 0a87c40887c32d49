// One reader thread per CPU for `record`: whole sub-buffers spliced from trace_pipe_raw into the
// CPU's scratch file, with trace-cmd record's reader knobs: -s (wake-up interval instead of the
// buffer_percent watermark), -r (SCHED_FIFO priority) and -m (keep only the last KB per CPU).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include <ringscope/tracefs.hpp>

namespace ringscope::capture {

struct ReaderKnobs {
    int sleep_us = -1;    // -s: >= 0 polls every sleep_us; < 0 blocks until the kernel wakes it
    int rt_prio = 0;      // -r: 0 = the normal scheduler
    uint64_t max_kb = 0;  // -m: 0 = no limit
    uint32_t subbuf = 4096;
};

class CpuReader {
  public:
    CpuReader(tracefs::TracefsCpu cpu, int out_fd, const ReaderKnobs& knobs)
        : cpu_(std::move(cpu)), out_(out_fd), knobs_(knobs) {}
    // The thread body; `failed` is raised when a write fails (ENOSPC...).
    void run(std::atomic<bool>& failed);
    void stop();
    // What is left in the buffer after tracing stopped (after join). Bytes, or -1 with errno.
    int flush_rest();

    tracefs::TracefsCpu& cpu() noexcept { return cpu_; }
    uint64_t bytes() const noexcept { return bytes_.load(); }  // in the file now
    int tid() const noexcept { return tid_.load(); }           // 0 until the thread runs
    int error() const noexcept { return error_; }              // errno of the failed write
    const std::string& warning() const noexcept { return warning_; }

  private:
    bool trim();  // -m: drops the older half of the file

    tracefs::TracefsCpu cpu_;
    int out_ = -1;
    ReaderKnobs knobs_;
    std::atomic<bool> stop_{false};
    std::atomic<uint64_t> bytes_{0};
    std::atomic<int> tid_{0};
    int error_ = 0;
    std::string warning_;
};

}  // namespace ringscope::capture
