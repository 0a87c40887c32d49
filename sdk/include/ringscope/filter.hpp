// Event filters in libtraceevent's grammar (`trace-cmd report -F`, tep_filter_add_filter_str):
//   [system/]event[,[system/]event...][: expression]
// A filter string is compiled once per event type it names into a small program; evaluating an
// event is a table lookup by type id plus a walk of that program, with no allocation.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/event.hpp>
#include <ringscope/event_type.hpp>

namespace ringscope {

// What one filter says about one event (tep_filter_match's answers).
enum class FilterResult : uint8_t {
    match,      // the filter names the event's type and the expression holds
    miss,       // the filter names the event's type and the expression does not hold
    not_found,  // the filter does not name the event's type
    error,      // evaluation failed (a string used as a number, `~`, division by zero)
};

class EventFilter {
  public:
    EventFilter();
    ~EventFilter();
    EventFilter(EventFilter&&) noexcept;
    EventFilter& operator=(EventFilter&&) noexcept;

    // Compiles `text` for every type in `types` whose system/name matches the event part (POSIX
    // basic regexes, case-insensitive, anchored; without '/', a pattern matches the system or the
    // name). Errors are Errc::parse with at_line(1, column): column is 1-based in `text`.
    static Expected<EventFilter> parse(std::string_view text, std::span<const EventType* const> types);

    FilterResult test(const Event& ev) const noexcept;
    bool matches(const Event& ev) const noexcept { return test(ev) == FilterResult::match; }

    // Whether the event part named this type.
    bool covers(uint32_t type_id) const noexcept;
    std::vector<uint32_t> type_ids() const;
    // The compiled expression for a type in tep_filter_make_string's notation ("TRUE", "FALSE",
    // "(pid == 1) && (COMM == \"bash\")"); empty when the type is not covered.
    std::string describe(uint32_t type_id) const;
    const std::string& text() const noexcept;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Several -F filters with -v, decided the way `trace-cmd report` decides (tracecmd_filter_match):
//  - with positive filters, an event is shown only when some positive filter matches it (events
//    of types no positive filter names are hidden);
//  - an event is hidden when some negative (-v) filter matches it (types no negative filter names
//    pass);
//  - an evaluation error counts as "no match" for both kinds;
//  - ftrace/kernel_stack and ftrace/user_stack events that no positive filter matches are still
//    shown when the last event decided on the same CPU was shown (trace-cmd's stack trace rule).
class FilterSet {
  public:
    FilterSet();
    ~FilterSet();
    FilterSet(FilterSet&&) noexcept;
    FilterSet& operator=(FilterSet&&) noexcept;

    // Parses and adds one filter; `types` are all event types of the trace (the stack trace rule
    // looks up ftrace/kernel_stack and ftrace/user_stack there).
    Status add(std::string_view text, bool negate, std::span<const EventType* const> types);

    // The selection's parts (ringscope/selection.hpp), appended after the ABI 2 methods:
    // A positive filter that matches an event when its common_pid, pid or next_pid field is one of
    // `pids` (what `.*: common_pid==P || pid==P || next_pid==P` says for every P, without the
    // grammar's token limit: --comm may name thousands of pids).
    void add_pids(std::span<const int> pids);
    // Only events of the types `text` names ("[system/]event[,...]", no expression), ANDed with
    // the rest; several calls add types.
    Status limit_events(std::string_view text, std::span<const EventType* const> types);
    // Only events of these CPUs (empty: every CPU) and with from_ns <= timestamp <= to_ns.
    void limit_cpus(std::span<const int> cpus);
    void limit_time(uint64_t from_ns, uint64_t to_ns) noexcept;
    // The stack trace rule of trace-cmd 3.1.6 (its libtracecmd's tracecmd_filter_match): after a
    // shown event, every later stack trace of that CPU shows, until -v hides an event there. By
    // default (trace-cmd 3.2 and later) only the first stack trace after a shown event shows.
    void keep_showing_stacks(bool on) noexcept;

    bool empty() const noexcept;
    size_t positive_count() const noexcept;
    size_t negative_count() const noexcept;

    // The decision for the next event in iteration order; keeps the per-CPU "last shown" state the
    // stack trace rule needs, so call it once per event, in order.
    bool accept(const Event& ev) noexcept;
    // Forgets the per-CPU state (a new iteration starts).
    void reset() noexcept;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ringscope
