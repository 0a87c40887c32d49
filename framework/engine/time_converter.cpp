#include "framework/engine/time_converter.hpp"

#include <algorithm>
#include <cstdlib>

namespace ringscope::engine {

TimeConverter TimeConverter::from_options(const io::TraceDatOptions& options) {
    TimeConverter tc;
    if (options.tsc2nsec && options.tsc2nsec->mult) {
        tc.mult_ = options.tsc2nsec->mult;
        tc.shift_ = options.tsc2nsec->shift;
    }
    if (options.time_shift) tc.set_time_shift(options.time_shift->cpus, options.time_shift->flags & 1u);
    return tc;
}

void TimeConverter::set_time_shift(std::vector<std::vector<io::TimeShiftSample>> cpus, bool interpolate) {
    interpolate_ = interpolate;
    shift_cpus_.clear();
    for (const auto& cpu : cpus) {
        std::vector<Sample> samples;
        samples.reserve(cpu.size());
        for (const auto& s : cpu) samples.push_back({s.time, s.offset, s.scaling, s.fraction});
        // libtracecmd sorts the samples by time and keeps the first of equal times.
        std::stable_sort(samples.begin(), samples.end(),
                         [](const Sample& a, const Sample& b) { return a.time < b.time; });
        samples.erase(std::unique(samples.begin(), samples.end(),
                                  [](const Sample& a, const Sample& b) { return a.time == b.time; }),
                      samples.end());
        shift_cpus_.push_back(std::move(samples));
    }
}

void TimeConverter::set_ts2secs_hz(uint64_t hz) noexcept {
    ts2secs_ = hz ? 1000000000.0 / static_cast<double>(hz) : 0.0;
}

uint64_t TimeConverter::correct(uint64_t ts, bool interpolate, const Sample& lo, const Sample& hi) noexcept {
    // libtracecmd 1.3 (trace-cmd 3.1.6): the offset is interpolated, the scaling and fraction of the
    // lower sample are applied. Unsigned arithmetic wraps as the C code's does.
    int64_t tscor = lo.offset;
    if (interpolate) {
        const int64_t delta = hi.time - lo.time;
        const int64_t off = static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(ts) - lo.time) *
                                                 static_cast<uint64_t>(hi.offset - lo.offset));
        if (delta != 0) tscor = lo.offset + (off + delta / 2) / delta;  // libtracecmd divides by zero here
    }
    const unsigned frac = static_cast<unsigned>(lo.fraction) & 63u;
    ts = (ts * static_cast<uint64_t>(lo.scaling)) >> frac;
    if (tscor < 0) return ts - (uint64_t{0} - static_cast<uint64_t>(tscor));
    return ts + static_cast<uint64_t>(tscor);
}

uint64_t TimeConverter::host_sync(uint64_t ts, int cpu) const noexcept {
    if (cpu < 0 || static_cast<size_t>(cpu) >= shift_cpus_.size()) return ts;
    const auto& s = shift_cpus_[static_cast<size_t>(cpu)];
    if (s.empty()) return ts;
    if (s.size() == 1) return ts + static_cast<uint64_t>(s[0].offset);
    if (s.size() == 2) return correct(ts, interpolate_, s[0], s[1]);
    const int64_t t = static_cast<int64_t>(ts);
    if (t <= s.front().time) return correct(ts, interpolate_, s[0], s[1]);
    if (t >= s.back().time) return correct(ts, interpolate_, s[s.size() - 2], s[s.size() - 1]);
    // The sample pair around ts, found the way libtracecmd's binary search ends.
    long lo = 0, hi = static_cast<long>(s.size()) - 1, mid = (lo + hi) / 2;
    while (lo <= hi) {
        if (t < s[static_cast<size_t>(mid)].time)
            hi = mid - 1;
        else if (t > s[static_cast<size_t>(mid)].time)
            lo = mid + 1;
        else
            break;
        mid = (lo + hi) / 2;
    }
    return correct(ts, interpolate_, s[static_cast<size_t>(mid)], s[static_cast<size_t>(mid) + 1]);
}

}  // namespace ringscope::engine
