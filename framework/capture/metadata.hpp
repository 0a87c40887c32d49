// The metadata trace-cmd stores with a recording, read from tracefs: header_page/header_event,
// ftrace and event formats, kallsyms, printk formats, saved cmdlines and the options (uname,
// version, trace clock, trace id, CPU count, per-CPU stats).
#pragma once

#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/tracefs.hpp>

#include "framework/capture/event_selection.hpp"
#include "framework/io/trace_dat_types.hpp"

namespace ringscope::capture {

// What is known before tracing starts. `events` null: every event format (as trace-cmd extract).
// The trace clock text is the instance's trace_clock file.
Expected<io::TraceMetadata> collect_metadata(const tracefs::Instance& instance, const EventSelection* events,
                                             uint32_t cpu_count);

// What is known at the end: saved cmdlines and each CPU's stats ("CPU: N\n" + the stats file, as
// trace-cmd writes the CPUSTAT option), in `cpus` order.
Status finish_metadata(io::TraceMetadata& meta, const tracefs::Instance& instance,
                       const std::vector<int>& cpus, const std::vector<tracefs::CpuStats>& stats);

}  // namespace ringscope::capture
