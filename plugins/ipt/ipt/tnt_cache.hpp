// Taken/not-taken bits of the last TNT packet, oldest first (libipt's pt_tnt_cache).
#pragma once

#include <cstdint>

#include "ipt/errors.hpp"
#include "ipt/packet.hpp"

namespace ringscope::ipt {

struct TntCache {
    uint64_t tnt = 0;
    uint64_t index = 0;  // the bit to answer next; 0 when empty

    void init() noexcept { tnt = index = 0; }
    bool empty() const noexcept { return index == 0; }

    // 1 taken, 0 not taken, -pte_bad_query when empty.
    int query() noexcept {
        if (!index) return -pte_bad_query;
        int taken = (tnt & index) != 0;
        index >>= 1;
        return taken;
    }

    int add(const PacketTnt& p) noexcept {
        uint8_t size = p.bit_size;
        if (!size) return 0;
        uint64_t idx = index ? index << size : 1ull << (size - 1);
        if (!idx) return -pte_overflow;
        index = idx;
        tnt = (size >= 64 ? 0 : tnt << size) | (p.payload & ((size >= 64) ? ~0ull : ((1ull << size) - 1)));
        return 0;
    }
};

}  // namespace ringscope::ipt
