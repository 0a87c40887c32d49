// The two clock options trace-cmd record can add: TSC2NSEC (`--tsc2nsec`: record with the x86-tsc
// clock and store how the kernel converts TSC counts to ns) and DATE (`--date`: store the offset of
// the trace clock from the wall clock, so reports print wall-clock times).
#pragma once

#include <string>

#include <ringscope/error.hpp>
#include <ringscope/tracefs.hpp>

#include "framework/io/trace_dat_types.hpp"

namespace ringscope::capture {

// The conversion perf publishes in a perf event's mmap page (time_mult, time_shift, time_zero), as
// tracefs_time_conversion(3) reads it. Errc::unsupported when the kernel does not publish it
// (cap_user_time_zero is 0: no stable TSC, or a hypervisor hides it).
Expected<io::Tsc2Nsec> read_tsc2nsec();

// Microseconds to add to the trace clock's times to get the wall clock, as DATE's "0x..." text.
// Measured with markers written to SCRATCH, a short-lived instance the caller made (journaled, so
// that a kill meanwhile does not leave it) and removes, set to `clock` (bracketed by CLOCK_REALTIME
// reads; the narrowest bracket wins). Errc::unsupported for clocks that do not count in ns
// (counter, x86-tsc).
Expected<std::string> measure_date_offset(const tracefs::Instance& scratch, const std::string& clock);

}  // namespace ringscope::capture
