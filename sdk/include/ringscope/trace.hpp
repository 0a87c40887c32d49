// Reading trace files from a program or a plugin: what libtracecmd's tracecmd_iterate_events(3)
// family offers, in C++. A Trace is one opened file; iterations call back in time order.
//
//   auto trace = ringscope::Trace::open("trace.dat");
//   if (!trace) { std::cerr << trace.error().to_string() << "\n"; return 1; }
//   trace->iterate([](ringscope::Trace&, const ringscope::Event& ev, int cpu) {
//       std::printf("%s\n", std::string(ev.name()).c_str());
//       return 0;  // non-zero stops the iteration and is returned
//   });
//   for (const ringscope::Event& ev : trace->events()) ...;
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/context.hpp>
#include <ringscope/error.hpp>
#include <ringscope/event.hpp>
#include <ringscope/resolver.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope {

struct EventSelection;  // ringscope/selection.hpp

struct TraceOpenOptions {
    bool raw_timestamps = false;       // as recorded: no time shift, TSC2NSEC or offset
    bool load_plugins = true;          // print overrides of the installed plugins, as libtracecmd does
    const ResolverService* resolvers = nullptr;  // asked for domains the file does not hold (guests)
};

class Trace {
public:
    // (trace, event, cpu): cpu is the n-th CPU across all traces of a multi-trace iteration, the
    // event's own CPU otherwise (ev.cpu() is always the recorded CPU). Non-zero stops and is returned.
    using Callback = std::function<int(Trace& trace, const Event& event, int cpu)>;

    static Expected<Trace> open(const std::string& path, const TraceOpenOptions& options = {});
    static Expected<Trace> open_fd(int fd, const TraceOpenOptions& options = {});
    // Opens every path and applies `selection` to each (select()): what an analysis command reads.
    // The first error names its file: Errc::parse for a filter or event the trace does not have.
    static Expected<std::vector<Trace>> open_selected(const std::vector<std::string>& paths,
                                                      const TraceOpenOptions& options,
                                                      const EventSelection& selection);

    Trace(Trace&&) noexcept;
    Trace& operator=(Trace&&) noexcept;
    ~Trace();

    const std::string& path() const noexcept;
    const TraceContext& context() const noexcept;
    TraceContext& context() noexcept;
    int cpu_count() const noexcept;

    // Data of the caller's own, kept with the handle (tracecmd_set_private / get_private).
    void set_private(void* data) noexcept;
    void* get_private() const noexcept;

    // All events in time order; `cpus` empty = every CPU. Filters and followers apply.
    int iterate(const Callback& callback, std::span<const int> cpus = {});
    // Newest first. cont = false starts at the newest event; true goes on from where the last
    // reverse iteration stopped.
    int iterate_reverse(const Callback& callback, std::span<const int> cpus = {}, bool cont = false);
    // Several traces merged in time order. A host trace first and guest traces recorded with
    // trace-cmd's agent after it: guest times are converted to the host's with the files' own
    // time-sync data before merging.
    static int iterate_multi(std::span<Trace* const> traces, const Callback& callback);

    // Called for matching events before the iteration callback (system "" = any system).
    Status follow_event(std::string_view system, std::string_view name, Callback callback);
    // Called first for an event that has missed events before it (ev.missed_before() != 0),
    // before filters.
    void follow_missed_events(Callback callback);
    // A libtraceevent filter ("[system/]event[,...]: expression"); neg = skip what matches.
    // Errors name the column in the filter string.
    Status add_filter(std::string_view filter, bool neg = false);
    // The shared selection (ringscope/selection.hpp): -F filters, CPUs, pids, comms (through the
    // file's saved cmdlines), events and time range, all applied like add_filter's. Errors name
    // the file (a filter's column, an event no format has).
    Status select(const EventSelection& selection);
    // The next iteration starts again at the first event.
    int reset();

    // The default text of an event (what `trace-cmd report -N` prints after "name: ").
    void print_info(const Event& event, TextBuffer& out) const;

    // for (const Event& ev : trace.events()) / trace.events().reverse(): no callbacks, no
    // allocation per event; filters apply, followers do not.
    class EventRange;
    EventRange events();

    // Ok, or the first error met by the last iteration (a corrupt page names file and offset).
    const Status& status() const noexcept;

    struct Impl;
    Impl& impl() noexcept { return *impl_; }

private:
    explicit Trace(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

class Trace::EventRange {
public:
    class iterator {
    public:
        using value_type = Event;
        using difference_type = std::ptrdiff_t;
        const Event& operator*() const noexcept { return current_; }
        const Event* operator->() const noexcept { return &current_; }
        iterator& operator++();
        bool operator==(std::default_sentinel_t) const noexcept { return done_; }

    private:
        friend class EventRange;
        Trace* trace_ = nullptr;
        bool reverse_ = false;
        bool done_ = true;
        Event current_;
    };

    iterator begin();
    std::default_sentinel_t end() const noexcept { return {}; }
    // Newest first.
    EventRange reverse() const noexcept {
        EventRange r = *this;
        r.reverse_ = !reverse_;
        return r;
    }

private:
    friend class Trace;
    explicit EventRange(Trace* t) : trace_(t) {}
    Trace* trace_;
    bool reverse_ = false;
};

inline Trace::EventRange Trace::events() {
    return EventRange(this);
}

}  // namespace ringscope
