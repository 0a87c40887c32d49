// trace-cmd's commands over tracefs that are not captures: what `stat` prints, and `reset`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/tracefs.hpp>

namespace ringscope::capture {

// trace-cmd stat's text for one buffer (its order: tracer, events, filters, triggers, function
// filters, buffer sizes once expanded, clock, CPU mask, latency, probes, pids, options with
// `options`, tracing on/off, error log; the top buffer ends with the instances). Directories are
// walked in readdir order, as trace-cmd walks them.
std::string stat_text(const tracefs::Instance& instance, bool options);

struct ResetSpec {
    uint64_t buffer_kb = 0;  // -b: resize (0 = leave the size)
};

// trace-cmd reset of one buffer: tracing off, tracer nop, events off, event filters and triggers
// cleared, pid filters cleared, function filters cleared where the kernel lets them be read, CPU
// mask all, clock local, the capture options (stacktrace, event-fork, function-fork) off, buffer
// emptied (and resized with -b), tracing back on (the kernel's default). Every step is tried; the
// first error is returned.
Status reset_buffer(const tracefs::Instance& instance, const ResetSpec& spec);

// The tracing_cpumask value with every CPU (the highest CPU number sets the width): -M -1, reset.
std::string all_cpus_mask(const std::vector<int>& cpus);

// The entries of a tracefs directory in readdir order (trace-cmd lists them so), only the
// subdirectories with dirs_only.
std::vector<std::string> entries_in_order(const std::string& dir, bool dirs_only);

// trace-cmd's option list: each file of OPTIONS_DIR in readdir order, "no" in front when it is off.
std::vector<std::string> option_states(const std::string& options_dir);

// Instance names in readdir order.
Expected<std::vector<std::string>> instance_names(const std::string& root);

}  // namespace ringscope::capture
