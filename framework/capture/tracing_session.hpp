// The tracing state a capture changes, and its restoration. Every change goes through a
// StateJournal first (the value it replaces), so that restore(), a later command after a SIGKILL,
// or `reset --restore` can put it back; with an instance name, the instance is created and
// removed, or, when it exists, used as trace-cmd uses it: its settings put back, never removed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/tracefs.hpp>

#include "framework/capture/event_selection.hpp"
#include "framework/capture/state_journal.hpp"

namespace ringscope::capture {

// One -e argument, with the -f filters that followed it; after -v it is left out instead.
struct EventSpec {
    std::string spec;
    std::string filter;  // "" = none; several -f are joined as trace-cmd does: (a)&&(b)
    bool negated = false;
    std::vector<std::string> triggers;  // -R: written to the event's trigger file (even after -v)
};

// What trace-cmd record's options ask of tracefs (see `man trace-cmd-record`).
struct TraceSetup {
    std::string root;      // tracefs mount ("" = find_tracefs(), which reads RINGSCOPE_TRACEFS)
    std::string instance;  // -B: "" = the top buffer
    std::vector<EventSpec> events;
    bool ignore_missing = false;  // -i: events that match nothing are skipped
    uint64_t buffer_kb = 0;       // -b: 0 = leave as it is
    std::string clock;            // -C
    std::string tracer;           // -p
    std::vector<std::string> ftrace_filter, ftrace_notrace, graph_functions;  // -l, -n, -g
    std::vector<int> pids;                                                    // -P
    bool children = false;                                                    // -c: event-fork
    std::vector<std::string> options;  // -O NAME / noNAME, -T (stacktrace), -d (nofunction-trace)
    std::string cpumask;               // -M (hex; -1 = every CPU)
    std::string max_graph_depth;       // --max-graph-depth
};

class TracingSession {
  public:
    // Prepares the buffer with tracing off: events enabled, size and clock set, buffer cleared.
    // On an error, what was changed is restored before returning it.
    static Expected<std::unique_ptr<TracingSession>> start(const TraceSetup& setup);
    ~TracingSession();  // restore() if neither restored nor kept
    TracingSession(const TracingSession&) = delete;
    TracingSession& operator=(const TracingSession&) = delete;

    const tracefs::Instance& instance() const noexcept { return instance_; }
    const EventSelection& events() const noexcept { return events_; }
    const std::vector<int>& cpus() const noexcept { return cpus_; }
    Status set_tracing(bool on);
    // -F: the command's pid, once it is forked (set_event_pid, set_ftrace_pid with a function tracer).
    Status trace_only_pid(int pid);
    // The recorder's own threads, left out of the events (trace-cmd's default; --no-filter skips it).
    Status exclude_pids(const std::vector<int>& pids);
    // A short-lived instance of the recorder's own (--date's markers), journaled: removed on
    // every exit path; the caller removes it once done.
    Expected<tracefs::Instance> make_scratch_instance(const std::string& name);
    // record's output (absolute), journaled so that a recovery after a kill assembles it.
    Status note_capture(const std::string& output) { return journal_->note_capture(output); }

    // Puts everything back (the instance's readers must be closed first). Idempotent; returns the
    // first error but tries every step.
    Status restore();
    // `start`: the changes stay; the journal is kept for `reset --restore`.
    Status keep();

  private:
    explicit TracingSession(tracefs::Instance inst) : instance_(std::move(inst)) {}
    Status configure(const TraceSetup& setup);
    Status set_functions(const TraceSetup& setup);
    Status set_filters(const TraceSetup& setup);
    Status set_triggers(const TraceSetup& setup);
    Status set_options(const TraceSetup& setup);
    Status set_pids(const TraceSetup& setup);
    Status set(std::string_view file, std::string_view value, RestoreKind kind = RestoreKind::value);

    tracefs::Instance instance_;
    std::unique_ptr<StateJournal> journal_;
    EventSelection events_;
    std::vector<int> cpus_;
    bool function_tracer_ = false;
};

}  // namespace ringscope::capture
