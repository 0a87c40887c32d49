// Hexadecimal output shared by the evaluator's printers: a byte as two digits (as
// libtraceevent's "%02x"), and a number as "0x" + its digits (its "0x%llx").
#pragma once

#include <cstdint>

#include <ringscope/text_buffer.hpp>

namespace ringscope::format {

inline void put_hex2(TextBuffer& out, uint8_t b, bool upper = false) {
    const char* d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    out.push_back(d[b >> 4]);
    out.push_back(d[b & 15]);
}

inline void put_0x(TextBuffer& out, uint64_t v) {
    out.append("0x");
    out.append_hex(v);
}

}  // namespace ringscope::format
