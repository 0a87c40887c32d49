// The protobuf wire format, as much of it as a Perfetto trace needs: varints, length-delimited
// fields and nested messages, appended to a std::string or, on the per-event path, to Bytes.
// Nested messages are written in place: begin_nested() leaves two bytes for the length and
// end_nested() fills them in as a two-byte varint (a redundant one below 128, which every
// protobuf parser reads and Perfetto's own writer uses, four bytes there); a message of 16 KiB or
// more moves to make room for a longer length.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace ringscope::perfetto {

enum class WireType : uint32_t { varint = 0, fixed64 = 1, len = 2, fixed32 = 5 };

inline constexpr uint32_t tag(uint32_t field, WireType w) noexcept {
    return (field << 3) | static_cast<uint32_t>(w);
}

inline size_t varint_size(uint64_t v) noexcept {
    const int bits = 64 - std::countl_zero(v | 1);  // 7 bits a byte, without a loop
    return static_cast<size_t>((bits * 9 + 64) / 64);
}

// Writes V as a varint at P (room for 10 bytes); returns the end.
inline char* write_varint(char* p, uint64_t v) noexcept {
    while (v >= 0x80) {
        *p++ = static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<char>(v);
    return p;
}

// A growable byte buffer for the per-event path: room(N) makes space for N more bytes and returns
// where they go, set_end() keeps what was written. A varint is then a few stores, where
// std::string::append is a call to memcpy per piece (a third of convert's time).
class Bytes {
  public:
    char* room(size_t n) {
        if (static_cast<size_t>(cap_ - end_) < n) grow(n);
        return end_;
    }
    void set_end(char* p) noexcept { end_ = p; }
    void append(const char* d, size_t n) {
        char* p = room(n);
        if (n) std::memcpy(p, d, n);
        end_ = p + n;
    }
    void append(std::string_view s) { append(s.data(), s.size()); }
    const char* data() const noexcept { return buf_.get(); }
    char* data() noexcept { return buf_.get(); }
    size_t size() const noexcept { return static_cast<size_t>(end_ - buf_.get()); }
    bool empty() const noexcept { return end_ == buf_.get(); }
    void clear() noexcept { end_ = buf_.get(); }
    std::string_view view() const noexcept { return {data(), size()}; }
    operator std::string_view() const noexcept { return view(); }

  private:
    void grow(size_t n) {
        const size_t used = size(), cap = static_cast<size_t>(cap_ - buf_.get());
        size_t want = cap ? 2 * cap : 4096;
        while (want < used + n) want *= 2;
        auto b = std::make_unique<char[]>(want);
        if (used) std::memcpy(b.get(), buf_.get(), used);
        buf_ = std::move(b);
        end_ = buf_.get() + used;
        cap_ = buf_.get() + want;
    }
    std::unique_ptr<char[]> buf_;
    char* end_ = nullptr;
    char* cap_ = nullptr;
};

inline void put_varint(std::string& out, uint64_t v) {
    char buf[10];
    out.append(buf, static_cast<size_t>(write_varint(buf, v) - buf));
}
inline void put_varint(Bytes& out, uint64_t v) {
    out.set_end(write_varint(out.room(10), v));
}

// int32/int64/uint32/uint64/bool/enum fields: the value's two's complement as a varint (a
// negative int32 takes ten bytes, as protobuf writes it).
inline void put_uint(std::string& out, uint32_t field, uint64_t v) {
    put_varint(out, tag(field, WireType::varint));
    put_varint(out, v);
}
inline void put_uint(Bytes& out, uint32_t field, uint64_t v) {
    char* p = out.room(15);
    out.set_end(write_varint(write_varint(p, tag(field, WireType::varint)), v));
}
template <class Out>
inline void put_int(Out& out, uint32_t field, int64_t v) {
    put_uint(out, field, static_cast<uint64_t>(v));
}
template <class Out>
inline void put_double(Out& out, uint32_t field, double v) {
    put_varint(out, tag(field, WireType::fixed64));
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    char buf[8];
    for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(bits >> (8 * i));  // little-endian
    out.append(buf, 8);
}
// string, bytes and nested messages (already encoded in `bytes`).
template <class Out>
inline void put_bytes(Out& out, uint32_t field, std::string_view bytes) {
    put_varint(out, tag(field, WireType::len));
    put_varint(out, bytes.size());
    out.append(bytes.data(), bytes.size());
}

// Starts a length-delimited FIELD in OUT; returns what end_nested() takes.
template <class Out>
inline size_t begin_nested(Out& out, uint32_t field) {
    put_varint(out, tag(field, WireType::len));
    const char zero[2] = {0, 0};
    out.append(zero, 2);
    return out.size();
}
template <class Out>
inline void end_nested(Out& out, size_t start) {
    const size_t n = out.size() - start;
    if (n < (1u << 14)) [[likely]] {
        out.data()[start - 2] = static_cast<char>(0x80 | (n & 0x7f));
        out.data()[start - 1] = static_cast<char>(n >> 7);
        return;
    }
    char len[10];
    const size_t k = static_cast<size_t>(write_varint(len, n) - len);
    if constexpr (std::is_same_v<Out, std::string>) {
        out.replace(start - 2, 2, len, k);
    } else {
        out.room(k - 2);  // k > 2 here
        char* body = out.data() + start;
        std::memmove(body + (k - 2), body, n);
        std::memcpy(body - 2, len, k);
        out.set_end(body + (k - 2) + n);
    }
}

// A scalar or string field's size once encoded (key and value).
inline size_t uint_field_size(uint32_t field, uint64_t v) noexcept {
    return varint_size(tag(field, WireType::varint)) + varint_size(v);
}
inline size_t bytes_field_size(uint32_t field, size_t n) noexcept {
    return varint_size(tag(field, WireType::len)) + varint_size(n) + n;
}

}  // namespace ringscope::perfetto
