#include "framework/ringbuffer/page_header.hpp"

#include <cstring>
#include <string>

namespace ringscope::ringbuffer {

uint64_t read_word(const uint8_t* p, unsigned bytes, bool swap) noexcept {
    if (bytes == 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        return swap ? __builtin_bswap64(v) : v;
    }
    uint32_t v;
    std::memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

void write_word(uint8_t* p, unsigned bytes, bool swap, uint64_t value) noexcept {
    if (bytes == 8) {
        uint64_t v = swap ? __builtin_bswap64(value) : value;
        std::memcpy(p, &v, 8);
        return;
    }
    uint32_t v = static_cast<uint32_t>(value);
    if (swap) v = __builtin_bswap32(v);
    std::memcpy(p, &v, 4);
}

Expected<PageHeader> read_page_header(std::span<const uint8_t> subbuf, const SubBufferLayout& layout) {
    const bool swap = needs_swap(layout);
    const uint32_t start = layout.data_offset;
    if (subbuf.size() < start) {
        return Error(Errc::truncated, "sub-buffer of " + std::to_string(subbuf.size()) +
                                          " bytes is shorter than its " + std::to_string(start) +
                                          "-byte header")
            .at_offset(0);
    }
    PageHeader h;
    h.timestamp = read_word(subbuf.data(), 8, swap);
    const uint64_t commit = read_word(subbuf.data() + 8, layout.long_size, swap);
    h.data_size = static_cast<uint32_t>(commit & layout.commit_mask);
    const uint64_t room = subbuf.size() - start;
    if (h.data_size > room) {
        return Error(Errc::corrupt, "commit size " + std::to_string(h.data_size) + " is larger than the " +
                                        std::to_string(room) + " bytes of sub-buffer data")
            .at_offset(8);
    }
    h.lost = 0;
    if (commit & layout.missed_events_flag) {
        h.lost = -1;
        if (commit & layout.missed_stored_flag) {
            if (room - h.data_size < layout.long_size) {
                return Error(Errc::corrupt, "missed-events count stored past the end of the sub-buffer")
                    .at_offset(start + static_cast<int64_t>(h.data_size));
            }
            // kbuffer keeps it as a long long read from an unsigned long.
            h.lost =
                static_cast<int64_t>(read_word(subbuf.data() + start + h.data_size, layout.long_size, swap));
        }
    }
    return h;
}

}  // namespace ringscope::ringbuffer
