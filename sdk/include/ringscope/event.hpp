// A view of one event: cheap to copy, valid during the callback that receives it.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>

#include <ringscope/context.hpp>
#include <ringscope/event_type.hpp>

namespace ringscope {

class Event {
public:
    Event() = default;
    // trailing: how many bytes after the payload stay readable (the rest of its sub-buffer, and
    // for trace.dat records the page after it when the reader holds it).
    Event(const EventType* type, const TraceContext* ctx, std::span<const uint8_t> payload, uint64_t ts,
          int cpu, int64_t missed_before = 0, uint32_t trailing = 0)
        : type_(type), ctx_(ctx), data_(payload.data()), size_(static_cast<uint32_t>(payload.size())),
          cpu_(cpu), ts_(ts), missed_(missed_before), swap_(ctx && ctx->big_endian() != host_big_endian()),
          trailing_(trailing) {}

    uint64_t timestamp() const noexcept { return ts_; }  // nanoseconds (after the file's clock conversions)
    int cpu() const noexcept { return cpu_; }
    const EventType& type() const noexcept { return *type_; }
    const EventType* type_ptr() const noexcept { return type_; }
    uint32_t id() const noexcept { return type_->id; }
    std::string_view system() const noexcept { return type_->system; }
    std::string_view name() const noexcept { return type_->name; }
    const TraceContext& context() const noexcept { return *ctx_; }
    std::span<const uint8_t> payload() const noexcept { return {data_, size_}; }
    // The bytes after the payload up to the end of its sub-buffer (often the next records), for
    // printers that must read past a record as libtraceevent does (a "%s" of a char buf[0]).
    // Empty when the event does not come from a sub-buffer in memory.
    std::span<const uint8_t> trailing() const noexcept { return {data_ + size_, trailing_}; }
    // Events lost on this CPU just before this one: 0 none, >0 a count, -1 an unknown number.
    int64_t missed_before() const noexcept { return missed_; }

    int pid() const noexcept {
        const FieldHandle& h = type_->pid_field;
        return h ? static_cast<int>(read_signed(h.offset, h.size)) : -1;
    }
    std::string_view comm() const { return ctx_->comm(pid()); }

    // Typed access through a handle looked up once (EventType::handle). Out-of-range reads give 0.
    uint64_t u64(const FieldHandle& h) const noexcept { return read_unsigned(h.offset, h.size); }
    int64_t i64(const FieldHandle& h) const noexcept { return read_signed(h.offset, h.size); }
    // Integer as the field's signedness says.
    int64_t integer(const FieldHandle& h) const noexcept {
        return (h.flags & kFieldSigned) ? read_signed(h.offset, h.size)
                                        : static_cast<int64_t>(read_unsigned(h.offset, h.size));
    }
    // The bytes of a field: fixed arrays in place, __data_loc/__rel_loc resolved.
    std::span<const uint8_t> bytes(const FieldHandle& h) const noexcept {
        if (!h.found) return {};
        uint32_t off = h.offset, len = h.size;
        if (h.flags & (kFieldDynamic | kFieldRelLoc)) {
            uint32_t word = static_cast<uint32_t>(read_unsigned(h.offset, 4));
            off = word & 0xffff;
            len = word >> 16;
            if (h.flags & kFieldRelLoc) off += h.offset + 4;
        }
        if (off > size_ || len > size_ - off) return {};
        return {data_ + off, len};
    }
    // A string field, up to its first NUL.
    std::string_view str(const FieldHandle& h) const noexcept {
        auto b = bytes(h);
        const char* p = reinterpret_cast<const char*>(b.data());
        size_t n = b.empty() ? 0 : strnlen(p, b.size());
        return {p, n};
    }

    // By name: slower, for code that runs once per event type rather than per event.
    std::optional<int64_t> integer(std::string_view field) const noexcept {
        FieldHandle h = type_->handle(field);
        if (!h) return std::nullopt;
        return integer(h);
    }
    std::optional<std::string_view> str(std::string_view field) const noexcept {
        FieldHandle h = type_->handle(field);
        if (!h) return std::nullopt;
        return str(h);
    }

    static constexpr bool host_big_endian() noexcept {
        return std::endian::native == std::endian::big;
    }

private:
    uint64_t read_unsigned(uint32_t off, uint32_t n) const noexcept {
        if (off > size_ || n > size_ - off || n > 8) return 0;
        uint64_t v = 0;
        switch (n) {
            case 1: return data_[off];
            case 2: { uint16_t x; std::memcpy(&x, data_ + off, 2); return swap_ ? __builtin_bswap16(x) : x; }
            case 4: { uint32_t x; std::memcpy(&x, data_ + off, 4); return swap_ ? __builtin_bswap32(x) : x; }
            case 8: { std::memcpy(&v, data_ + off, 8); return swap_ ? __builtin_bswap64(v) : v; }
            default: return 0;
        }
    }
    int64_t read_signed(uint32_t off, uint32_t n) const noexcept {
        uint64_t v = read_unsigned(off, n);
        if (n == 0 || n >= 8) return static_cast<int64_t>(v);
        unsigned shift = 64 - 8 * n;
        return static_cast<int64_t>(v << shift) >> shift;
    }

    const EventType* type_ = nullptr;
    const TraceContext* ctx_ = nullptr;
    const uint8_t* data_ = nullptr;
    uint32_t size_ = 0;
    int cpu_ = -1;
    uint64_t ts_ = 0;
    int64_t missed_ = 0;
    bool swap_ = false;
    uint32_t trailing_ = 0;  // fits in the padding after swap_: sizeof(Event) is unchanged
};

}  // namespace ringscope
