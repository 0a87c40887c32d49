// What an event can ask of the trace it came from: task names, event types, symbols.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include <ringscope/text_buffer.hpp>

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

    // Appended after big_endian (plugins built before keep their vtable layout).
    // A traced function's arguments as trace-cmd 3.4 prints them (libtraceevent 1.9's
    // tep_btf_print_args), without the parentheses: ARGS holds COUNT values of SIZE bytes (4 or 8,
    // host order); from the trace's BTF "name=value, ..." by the parameters' types, else (no BTF,
    // or a function it does not know) the values in hex, ", " between them. False when nothing
    // may be printed (an unresolved FUNC, a SIZE other than 4 or 8).
    virtual bool print_function_args(std::span<const uint8_t> args, size_t count, int size,
                                     std::string_view func, TextBuffer& out) const {
        if (func.empty() || (size != 4 && size != 8)) return false;
        for (size_t i = 0; i < count && (i + 1) * static_cast<size_t>(size) <= args.size(); ++i) {
            uint64_t v = 0;
            if (size == 4) {
                uint32_t w;
                std::memcpy(&w, args.data() + i * 4, 4);
                v = w;
            } else {
                std::memcpy(&v, args.data() + i * 8, 8);
            }
            if (i) out.append(", ");
            out.append_hex(v);
        }
        return true;
    }
};

}  // namespace ringscope
