#include "timesync_cases.hpp"

#include <algorithm>
#include <cstdint>

namespace ringscope::timesync {
namespace {

using io::TimeShift;
using io::TimeShiftSample;

constexpr uint32_t kInterpolate = 1;

// The span the CPU's original samples cover (they bracket the recording).
struct Span {
    int64_t first, last, offset;
};

Span span_of(const std::vector<TimeShiftSample>& samples) {
    Span s{samples.front().time, samples.front().time, samples.front().offset};
    for (const auto& x : samples) {
        s.first = std::min(s.first, x.time);
        s.last = std::max(s.last, x.time);
    }
    return s;
}

// `count` samples evenly over [from, to] of the span, offsets stepping by the given deltas in turn.
std::vector<TimeShiftSample> evenly(const Span& s, double from, double to, int count,
                                    const std::vector<int64_t>& deltas, int64_t scaling = 1,
                                    int64_t fraction = 0) {
    std::vector<TimeShiftSample> out;
    const double width = static_cast<double>(s.last - s.first);
    for (int i = 0; i < count; ++i) {
        const double at = from + (to - from) * (count == 1 ? 0.0 : static_cast<double>(i) / (count - 1));
        out.push_back({s.first + static_cast<int64_t>(width * at), s.offset + deltas[i % deltas.size()],
                       scaling, fraction});
    }
    return out;
}

TimeShift with_cpus(const TimeShift& original, uint32_t flags,
                    const std::function<std::vector<TimeShiftSample>(size_t cpu, const Span&)>& per_cpu) {
    TimeShift t = original;
    t.flags = flags;
    t.has_fraction = false;
    for (size_t c = 0; c < t.cpus.size(); ++c) {
        t.cpus[c] = per_cpu(c, span_of(original.cpus[c]));
        for (const auto& x : t.cpus[c])
            if (x.fraction != 0) t.has_fraction = true;
    }
    return t;
}

std::vector<TimeSyncCase> make_cases() {
    // Offsets are in guest clock units (x86-tsc here); steps of a few ms reorder host and guest events.
    const std::vector<int64_t> steps{0, 9'000'000, -4'000'000, 15'000'000, 2'000'000};
    return {
        {"single-sample",
         [](const TimeShift& o) {
             return with_cpus(o, 0,
                              [](size_t, const Span& s) { return evenly(s, 0.5, 0.5, 1, {7'000'000}); });
         }},
        {"steps",
         [=](const TimeShift& o) {
             return with_cpus(o, 0, [&](size_t, const Span& s) { return evenly(s, 0.0, 1.0, 5, steps); });
         }},
        {"steps-interpolated",
         [=](const TimeShift& o) {
             return with_cpus(o, kInterpolate,
                              [&](size_t, const Span& s) { return evenly(s, 0.0, 1.0, 5, steps); });
         }},
        {"two-samples-interpolated",
         [=](const TimeShift& o) {
             return with_cpus(o, kInterpolate,
                              [&](size_t, const Span& s) { return evenly(s, 0.1, 0.9, 2, steps); });
         }},
        {"inside-span-interpolated",  // events before the first and after the last sample
         [=](const TimeShift& o) {
             return with_cpus(o, kInterpolate,
                              [&](size_t, const Span& s) { return evenly(s, 0.3, 0.6, 3, steps); });
         }},
        {"scaling-fraction",
         [=](const TimeShift& o) {
             // 1 + 1000/2^20: a guest clock running slightly slow.
             return with_cpus(o, kInterpolate, [&](size_t, const Span& s) {
                 return evenly(s, 0.0, 1.0, 4, steps, (int64_t{1} << 20) + 1000, 20);
             });
         }},
        {"unsorted-duplicates",
         [=](const TimeShift& o) {
             return with_cpus(o, kInterpolate, [&](size_t, const Span& s) {
                 auto v = evenly(s, 0.0, 1.0, 4, steps);
                 // A second sample at an existing time with another offset, and file order reversed.
                 TimeShiftSample dup = v[1];
                 dup.offset += 50'000'000;
                 v.insert(v.begin() + 2, dup);
                 std::reverse(v.begin(), v.end());
                 return v;
             });
         }},
        {"uneven-cpus",
         [=](const TimeShift& o) {
             return with_cpus(o, kInterpolate, [&](size_t cpu, const Span& s) {
                 return cpu == 0 ? evenly(s, 0.0, 1.0, 7, steps) : evenly(s, 0.2, 0.2, 1, {-3'000'000});
             });
         }},
        {"negative-steps",
         [](const TimeShift& o) {
             return with_cpus(o, kInterpolate, [](size_t, const Span& s) {
                 return evenly(s, 0.0, 1.0, 3, {-20'000'000, 5'000'000, -60'000'000});
             });
         }},
    };
}

}  // namespace

const std::vector<TimeSyncCase>& timesync_cases() {
    static const std::vector<TimeSyncCase> cases = make_cases();
    return cases;
}

}  // namespace ringscope::timesync
