// What an event can ask of the trace it came from: task names, event types, symbols.
#pragma once

#include <cstdint>
#include <string_view>

namespace ringscope {

class EventType;
class ResolverService;

class TraceContext {
public:
    virtual ~TraceContext() = default;

    // The name recorded for a pid ("<...>" when unknown, as trace-cmd prints it). The view must stay
    // valid while the context lives, or until register_comm() changes that pid's name: report -j
    // keeps it until the event's line is written, after the stream has moved on.
    virtual std::string_view comm(int pid) const = 0;
    // Updates the pid -> comm map (the sched plugin does this from what sched events carry).
    virtual void register_comm(int pid, std::string_view comm) = 0;

    virtual const EventType* type_by_id(uint32_t id) const = 0;
    // An empty system matches any (the first type of that name), as libtraceevent's look-up.
    virtual const EventType* find_type(std::string_view system, std::string_view name) const = 0;

    // The symbol service: the host kernel domain is "kernel", guests by name.
    virtual const ResolverService& resolvers() const = 0;

    // The name of the input this event came from (file path or instance).
    virtual std::string_view source_name() const = 0;
    virtual int cpu_count() const = 0;
    virtual int long_size() const = 0;  // 4 or 8 (the traced kernel's)
    virtual bool big_endian() const = 0;
};

}  // namespace ringscope
