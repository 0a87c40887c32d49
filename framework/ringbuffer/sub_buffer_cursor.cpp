#include <string>

#include "framework/ringbuffer/page_header.hpp"
#include "ringscope/sub_buffer.hpp"

namespace ringscope {

SubBufferCursor::SubBufferCursor(const SubBufferLayout& layout) noexcept
    : layout_(layout),
      mode_(static_cast<uint8_t>((ringbuffer::needs_swap(layout) ? 2 : 0) | (layout.big_endian ? 1 : 0))),
      start_(layout.data_offset) {}

Status SubBufferCursor::reset(std::span<const uint8_t> subbuf) {
    failed_ = false;
    pos_ = size_ = 0;
    auto header = ringbuffer::read_page_header(subbuf, layout_);
    if (!header) {
        data_ = nullptr;
        return std::move(header).error();
    }
    data_ = subbuf.data() + start_;
    size_ = header->data_size;
    page_ts_ = ts_ = header->timestamp;
    lost_ = header->lost;
    return Status::success();
}

void SubBufferCursor::fail() noexcept {
    failed_ = true;
    try {
        error_ = Error(Errc::corrupt,
                       "event record runs past the " + std::to_string(size_) + " bytes of sub-buffer data")
                     .at_offset(int64_t{start_} + pos_);
    } catch (...) {
        error_ = Error(Errc::corrupt, std::string());
    }
    pos_ = size_;
}

}  // namespace ringscope
