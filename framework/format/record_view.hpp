// The bytes of one record as the printers read them: numbers of 1, 2, 4 or 8 bytes in the file's
// byte order, 0 past the end (libtraceevent reads whatever memory follows), and the
// __data_loc/__rel_loc areas as libtraceevent's dynamic_offset_field() finds them.
#pragma once

#include <cstdint>
#include <cstring>

#include "framework/format/print_program.hpp"

namespace ringscope::format {

struct RecordView {
    const uint8_t* data = nullptr;
    uint32_t size = 0;
    bool swap = false;  // the file's byte order differs from the host's

    bool in_range(uint32_t off, uint32_t n) const noexcept { return off <= size && n <= size - off; }

    uint64_t read_number(uint32_t off, uint32_t n) const noexcept {
        if (!in_range(off, n)) return 0;
        const uint8_t* p = data + off;
        switch (n) {
            case 1:
                return *p;
            case 2: {
                uint16_t x;
                std::memcpy(&x, p, 2);
                return swap ? __builtin_bswap16(x) : x;
            }
            case 4: {
                uint32_t x;
                std::memcpy(&x, p, 4);
                return swap ? __builtin_bswap32(x) : x;
            }
            case 8: {
                uint64_t x;
                std::memcpy(&x, p, 8);
                return swap ? __builtin_bswap64(x) : x;
            }
            default:
                return 0;
        }
    }

    // Offset and length of a __data_loc/__rel_loc field's data (0, 0 when it does not fit).
    void dynamic_offset(const PField& f, uint32_t& offset, uint32_t& len) const noexcept {
        if (uint64_t{f.offset} + f.size > size) {
            offset = 0;
            len = 0;
            return;
        }
        const uint64_t val = read_number(f.offset, f.size);
        const uint32_t o = static_cast<uint32_t>(val & 0xffff);
        const uint32_t l = f.size == 2 ? size - o : static_cast<uint32_t>((val >> 16) & 0xffff);
        offset = o > size ? 0 : o;
        len = uint64_t{o} + l > size ? 0 : l;
        if (f.flags & kTepRelative) offset += f.offset + f.size;
    }
};

}  // namespace ringscope::format
