// The protobuf wire format, as much of it as a Perfetto trace needs: varints, length-delimited
// fields and nested messages, appended to a std::string. Nested messages are written in place:
// begin_nested() leaves two bytes for the length and end_nested() fills them in as a two-byte
// varint (a redundant one below 128, which every protobuf parser reads and Perfetto's own writer
// uses, four bytes there); a message of 16 KiB or more moves to make room for a longer length.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ringscope::perfetto {

enum class WireType : uint32_t { varint = 0, fixed64 = 1, len = 2, fixed32 = 5 };

inline constexpr uint32_t tag(uint32_t field, WireType w) noexcept {
    return (field << 3) | static_cast<uint32_t>(w);
}

inline size_t varint_size(uint64_t v) noexcept {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

inline void put_varint(std::string& out, uint64_t v) {
    char buf[10];
    size_t n = 0;
    while (v >= 0x80) {
        buf[n++] = static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    buf[n++] = static_cast<char>(v);
    out.append(buf, n);
}

// int32/int64/uint32/uint64/bool/enum fields: the value's two's complement as a varint (a
// negative int32 takes ten bytes, as protobuf writes it).
inline void put_uint(std::string& out, uint32_t field, uint64_t v) {
    put_varint(out, tag(field, WireType::varint));
    put_varint(out, v);
}
inline void put_int(std::string& out, uint32_t field, int64_t v) {
    put_uint(out, field, static_cast<uint64_t>(v));
}
inline void put_double(std::string& out, uint32_t field, double v) {
    put_varint(out, tag(field, WireType::fixed64));
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    char buf[8];
    for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(bits >> (8 * i));  // little-endian
    out.append(buf, 8);
}
// string, bytes and nested messages (already encoded in `bytes`).
inline void put_bytes(std::string& out, uint32_t field, std::string_view bytes) {
    put_varint(out, tag(field, WireType::len));
    put_varint(out, bytes.size());
    out.append(bytes.data(), bytes.size());
}

// Starts a length-delimited FIELD in OUT; returns what end_nested() takes.
inline size_t begin_nested(std::string& out, uint32_t field) {
    put_varint(out, tag(field, WireType::len));
    out.append(2, '\0');
    return out.size();
}
inline void end_nested(std::string& out, size_t start) {
    const size_t n = out.size() - start;
    if (n < (1u << 14)) {
        out[start - 2] = static_cast<char>(0x80 | (n & 0x7f));
        out[start - 1] = static_cast<char>(n >> 7);
        return;
    }
    std::string len;
    put_varint(len, n);
    out.replace(start - 2, 2, len);
}

// A scalar or string field's size once encoded (key and value).
inline size_t uint_field_size(uint32_t field, uint64_t v) noexcept {
    return varint_size(tag(field, WireType::varint)) + varint_size(v);
}
inline size_t bytes_field_size(uint32_t field, size_t n) noexcept {
    return varint_size(tag(field, WireType::len)) + varint_size(n) + n;
}

}  // namespace ringscope::perfetto
