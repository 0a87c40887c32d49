// An event handler subscribes to events by system/name, sees each matching event in time order,
// may replace how an event prints (this is how plugins change `report` output), and may produce
// results at the end (analyses).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/event.hpp>
#include <ringscope/result.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope {

// Empty system = any system; empty name = every event of the system.
struct EventMatch {
    std::string system;
    std::string name;

    bool matches(std::string_view sys, std::string_view ev) const noexcept {
        return (system.empty() || system == sys) && (name.empty() || name == ev);
    }
};

// What a print override may use besides the event itself.
class PrintContext {
public:
    virtual ~PrintContext() = default;
    // Appends the event's info as its own print fmt renders it (the default).
    virtual void print_default(const Event& ev, TextBuffer& out) = 0;
    // Appends one field as the default printer would show it in "name=value" form (value only).
    virtual void print_field(const Event& ev, std::string_view field, TextBuffer& out) = 0;
    // Updates the pid -> comm map used for later lines.
    virtual void register_comm(int pid, std::string_view comm) = 0;

    // Appended after the ABI 3 methods (the framework implements this class; plugins only call it).
    // The record that comes after the one being printed in its buffer's time order (every CPU of
    // that buffer of that file), as libtracecmd's tracecmd_peek_next_data gives it: function_graph
    // prints an entry followed by its own exit as one leaf line. nullopt at the end, for a record
    // whose event id has no format, and where the walk cannot look ahead (a live stream, the SDK's
    // Trace iteration). Valid until take_next() or the end of print(); the printed event stays valid.
    virtual std::optional<Event> peek_next() { return std::nullopt; }
    // Takes the record peek_next() gave out of the walk: it is not printed, and no handler sees it.
    // False when there is none.
    virtual bool take_next() { return false; }
};

class EventHandler {
public:
    virtual ~EventHandler() = default;
    virtual std::string_view name() const = 0;
    virtual std::vector<EventMatch> subscriptions() const = 0;

    // Called once per run before the first event.
    virtual void begin(const TraceContext& ctx) {}
    virtual void on_event(const Event& ev) {}

    // Print override: append the info part of the line (what follows "name: ") and return true,
    // or return false to leave the default print in place.
    virtual bool overrides_print() const { return false; }
    virtual bool print(const Event& ev, PrintContext& pc, TextBuffer& out) { return false; }

    // Appends to the event's report line after its info (trace-cmd report -w's " Latency: ...").
    // Called for the subscribed events of a report option's handler, before on_event.
    virtual void annotate_line(const Event& ev, TextBuffer& out) {}
    // Text printed after the last event line of a report (or instead of the events).
    virtual void report_summary(TextBuffer& out) {}

    // Called once after the last event; analyses add their tables.
    virtual void end(ResultSink& sink) {}
};

}  // namespace ringscope
