// A decoder turns one input (a file, mapped memory, a live fd) into a stream of events. It says
// which inputs it accepts by probing the first bytes and by an explicit format name, so a vendor
// adds a format without touching the framework.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/context.hpp>
#include <ringscope/error.hpp>
#include <ringscope/event.hpp>

namespace ringscope {

struct InputSource {
    std::string path;                // for messages; may be "-" or a tracefs path
    int fd = -1;                     // open for reading; owned by the framework
    std::span<const uint8_t> head;   // the first bytes (up to 64 KiB) for probing
    std::span<const uint8_t> mapped; // the whole input when it is a mapped regular file, else empty
    int threads = 1;                 // threads the decoder may use; its events stay the same (report
                                     // keeps 1 here: its -j threads format the lines)
};

class EventStream {
public:
    virtual ~EventStream() = default;
    virtual const TraceContext& context() const = 0;
    virtual std::vector<const EventType*> types() const = 0;
    // The next event in time order; false at the end or on an error (then status() says which).
    virtual bool next(Event& out) = 0;
    virtual Status status() const { return Status::success(); }
};

class Decoder {
public:
    virtual ~Decoder() = default;
    virtual std::string_view format_name() const = 0;  // what --input-format names, e.g. "ipt"
    virtual std::string_view description() const = 0;
    // 0: not this format; 1..100: confidence. The framework picks the highest.
    virtual int probe(std::span<const uint8_t> head) const = 0;
    virtual Expected<std::unique_ptr<EventStream>> open(const InputSource& in, ResolverService& resolvers) = 0;
};

}  // namespace ringscope
