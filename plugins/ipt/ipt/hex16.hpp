// An address or a TSC as ptxed and `ipt calls --time` print it ("%016" PRIx64) without printf,
// whose parsing of the format was most of the time of lines printed by the million.
#pragma once

#include <cstdint>

namespace ringscope::ipt {

// Writes v's 16 lowercase hex digits at p; returns the end.
inline char* put_hex16(char* p, uint64_t v) noexcept {
    for (int shift = 60; shift >= 0; shift -= 4) *p++ = "0123456789abcdef"[(v >> shift) & 0xf];
    return p;
}

}  // namespace ringscope::ipt
