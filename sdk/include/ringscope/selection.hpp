// Which events a command reads: the options every command that reads events shares (`report`,
// the analyses of `sched`, `kvm` and plugins, `run`):
//   -F FILTER [-v]     libtraceevent filters, as `trace-cmd report -F` (-v: the next ones exclude)
//   --cpu LIST         only these CPUs ("0,2", "1-3")
//   --pid PID          events of or about this task (common_pid, pid or next_pid), repeatable
//   --comm NAME        the same for every pid recorded with this name (no limit on their number)
//   -e/--event EVENT   only these events ([SYSTEM/]NAME, regex as in -F), repeatable
//   --from S, --to S   a time range in the trace's seconds, as `report` prints them
//   --first-event, --last-event   list each CPU's first / last event time instead
// A plugin's command reads them with parse_selection_option() and gives them to Trace::select().
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ringscope {

class Trace;

struct EventSelection {
    std::vector<std::pair<std::string, bool>> filters;  // -F text, excluded (after -v)
    bool negate_next = false;                           // -v seen: later -F exclude
    std::vector<int> cpus;                              // empty: every CPU
    std::vector<int> pids;
    std::vector<std::string> comms;
    std::vector<std::string> events;
    uint64_t from_ns = 0;
    uint64_t to_ns = std::numeric_limits<uint64_t>::max();
    bool list_first = false, list_last = false;  // --first-event, --last-event

    // Whether any event could be left out.
    bool selects() const noexcept {
        return !filters.empty() || !cpus.empty() || !pids.empty() || !comms.empty() || !events.empty() ||
               from_ns != 0 || to_ns != std::numeric_limits<uint64_t>::max();
    }
    bool lists_times() const noexcept { return list_first || list_last; }
};

enum class SelectionParse : uint8_t {
    not_mine,  // args[i] is not a selection option
    ok,        // read (i moved past its value)
    error,     // a selection option with a bad or missing value; `error` says which
};

// Reads the selection option at args[i] ("--cpu 1", "--cpu=1", "-F" "x" or "-Fx").
SelectionParse parse_selection_option(const std::vector<std::string>& args, size_t& i, EventSelection& sel,
                                      std::string& error);

// The lines of --help that list the options above (each ends in '\n').
const char* selection_usage() noexcept;

// "SECONDS.MICROSECONDS" as `report` prints a time (rounded to the microsecond).
std::string format_trace_seconds(uint64_t ns);
// "12.5", "1383892.867930", "7" -> nanoseconds; false when `text` is not a non-negative number.
bool parse_trace_seconds(std::string_view text, uint64_t& ns);

// --first-event / --last-event: per trace, each CPU with events and its first and/or last event
// time, as `report --first-event --last-event` prints them. Returns 0, or 1 when a trace fails to
// read (its error printed on `err`).
int print_cpu_event_times(std::span<Trace* const> traces, const EventSelection& sel, std::FILE* out,
                          std::FILE* err);

}  // namespace ringscope
