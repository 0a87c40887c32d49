// Turns ring-buffer timestamps into the times trace-cmd shows, in libtracecmd's order: guest ->
// host time shift (per-CPU samples), then either a user frequency (--ts2secs) or TSC2NSEC, then
// the user's offset. Raw mode (--raw-ts) leaves timestamps untouched.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "framework/io/trace_dat_types.hpp"

namespace ringscope::engine {

class TimeConverter {
  public:
    TimeConverter() = default;
    // From a file's options (TIME_SHIFT and TSC2NSEC), as libtracecmd loads them.
    static TimeConverter from_options(const io::TraceDatOptions& options);

    void set_raw(bool raw) noexcept { raw_ = raw; }
    bool raw() const noexcept { return raw_; }
    // --ts2secs HZ: multiply by 1e9/HZ (a double, truncated as libtracecmd's integer multiply does).
    void set_ts2secs_hz(uint64_t hz) noexcept;
    void add_offset(int64_t ns) noexcept { offset_ += ns; }
    void set_offset(int64_t ns) noexcept { offset_ = ns; }
    int64_t offset() const noexcept { return offset_; }
    bool has_tsc2nsec() const noexcept { return mult_ != 0; }
    bool has_time_shift() const noexcept { return !shift_cpus_.empty(); }

    uint64_t convert(uint64_t ts, int cpu_index) const noexcept {
        if (raw_) return ts;
        if (!shift_cpus_.empty()) ts = host_sync(ts, cpu_index);
        if (ts2secs_ != 0.0) {
            ts = static_cast<uint64_t>(static_cast<double>(ts) * ts2secs_);
        } else if (mult_) {
            ts = mul_u64_u32_shr(ts, mult_, shift_);
        }
        return ts + static_cast<uint64_t>(offset_);
    }

    // The kernel's mul_u64_u32_shr, as libtracecmd computes it (equal to the exact 128-bit
    // product for shift <= 32).
    static uint64_t mul_u64_u32_shr(uint64_t a, uint64_t mul, unsigned shift) noexcept {
        uint64_t al = static_cast<uint32_t>(a), ah = a >> 32;
        uint64_t ret = (al * mul) >> shift;
        if (ah) ret += (ah * mul) << (32 - shift);
        return ret;
    }

  private:
    struct Sample {
        int64_t time, offset, scaling, fraction;
    };
    uint64_t host_sync(uint64_t ts, int cpu) const noexcept;
    static uint64_t correct(uint64_t ts, bool interpolate, const Sample& lo, const Sample& hi) noexcept;

  public:
    // Per-CPU samples as libtracecmd keeps them (tests build converters without a file).
    void set_time_shift(std::vector<std::vector<io::TimeShiftSample>> cpus, bool interpolate);
    void set_tsc2nsec(uint32_t mult, uint32_t shift) noexcept {
        mult_ = mult;
        shift_ = shift;
    }

  private:
    bool raw_ = false;
    double ts2secs_ = 0.0;
    uint32_t mult_ = 0;
    uint32_t shift_ = 0;
    int64_t offset_ = 0;
    bool interpolate_ = false;
    std::vector<std::vector<Sample>> shift_cpus_;  // sorted by time, equal times dropped
};

}  // namespace ringscope::engine
