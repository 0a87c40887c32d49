// The test's own protobuf reader: a message's fields as (number, wire type, value or bytes), with
// every length checked, so a malformed output fails the test instead of crashing it.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace ringscope::test {

struct ProtoField {
    uint32_t number = 0;
    uint32_t wire = 0;
    uint64_t value = 0;      // varint and fixed64
    std::string_view bytes;  // length-delimited
};

inline uint64_t read_varint(std::string_view& in) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (in.empty()) throw std::runtime_error("varint runs past the end");
        const uint8_t b = static_cast<uint8_t>(in.front());
        in.remove_prefix(1);
        v |= static_cast<uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    throw std::runtime_error("varint longer than 10 bytes");
}

inline std::vector<ProtoField> read_message(std::string_view in) {
    std::vector<ProtoField> out;
    while (!in.empty()) {
        ProtoField f;
        const uint64_t key = read_varint(in);
        f.number = static_cast<uint32_t>(key >> 3);
        f.wire = static_cast<uint32_t>(key & 7);
        if (f.number == 0) throw std::runtime_error("field number 0");
        switch (f.wire) {
            case 0:
                f.value = read_varint(in);
                break;
            case 1:
                if (in.size() < 8) throw std::runtime_error("fixed64 past the end");
                for (int i = 0; i < 8; ++i)
                    f.value |= static_cast<uint64_t>(static_cast<uint8_t>(in[i])) << (8 * i);
                in.remove_prefix(8);
                break;
            case 2: {
                const uint64_t n = read_varint(in);
                if (n > in.size()) throw std::runtime_error("length past the end");
                f.bytes = in.substr(0, n);
                in.remove_prefix(n);
                break;
            }
            case 5:
                if (in.size() < 4) throw std::runtime_error("fixed32 past the end");
                for (int i = 0; i < 4; ++i)
                    f.value |= static_cast<uint64_t>(static_cast<uint8_t>(in[i])) << (8 * i);
                in.remove_prefix(4);
                break;
            default:
                throw std::runtime_error("wire type " + std::to_string(f.wire));
        }
        out.push_back(f);
    }
    return out;
}

inline std::optional<ProtoField> find_field(const std::vector<ProtoField>& m, uint32_t number) {
    for (const auto& f : m)
        if (f.number == number) return f;
    return std::nullopt;
}

}  // namespace ringscope::test
