// Edge cases of a guest file's TIME_SHIFT option (the guest -> host clock correction libtracecmd
// applies before merging host and guest events): several samples per CPU, interpolation, scaling with
// fraction bits, unsorted and duplicate sample times, samples that do not cover the trace.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "framework/io/trace_dat_types.hpp"

namespace ringscope::timesync {

struct TimeSyncCase {
    std::string name;
    // Rewrites the samples. `original` is the file's own option: its per-CPU samples span the trace.
    std::function<io::TimeShift(const io::TimeShift& original)> make;
};

const std::vector<TimeSyncCase>& timesync_cases();

// GoogleTest names a failing case by this instead of dumping its bytes.
inline void PrintTo(const TimeSyncCase& c, std::ostream* os) {
    *os << c.name;
}

}  // namespace ringscope::timesync
