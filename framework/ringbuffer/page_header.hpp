// The sub-buffer header check shared by SubBuffer::load and SubBufferCursor::reset.
#pragma once

#include <cstdint>
#include <span>

#include "ringscope/sub_buffer.hpp"

namespace ringscope::ringbuffer {

struct PageHeader {
    uint64_t timestamp;
    uint32_t data_size;  // commit & commit_mask
    int64_t lost;        // 0, the stored count, or -1 (unknown)
};

// Reads the timestamp and commit word of `subbuf` and checks that the data (and a stored missed
// count) lie inside it. Error offsets are from subbuf.data().
Expected<PageHeader> read_page_header(std::span<const uint8_t> subbuf, const SubBufferLayout& layout);

// Byte-order aware loads and stores of the layout's words.
uint64_t read_word(const uint8_t* p, unsigned bytes, bool swap) noexcept;
void write_word(uint8_t* p, unsigned bytes, bool swap, uint64_t value) noexcept;

inline bool needs_swap(const SubBufferLayout& layout) noexcept {
    return layout.big_endian != (std::endian::native == std::endian::big);
}

}  // namespace ringscope::ringbuffer
