#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "framework/ringbuffer/page_header.hpp"
#include "ringscope/sub_buffer.hpp"

namespace ringscope {
namespace {

detail::RecordKind decode(bool swap, bool big, const uint8_t* d, uint32_t size, uint32_t curr, uint64_t& ts,
                          detail::RecordStep& st) noexcept {
    if (swap) {
        return big ? detail::decode_record<true, true>(d, size, curr, ts, st)
                   : detail::decode_record<true, false>(d, size, curr, ts, st);
    }
    return big ? detail::decode_record<false, true>(d, size, curr, ts, st)
               : detail::decode_record<false, false>(d, size, curr, ts, st);
}

}  // namespace

SubBuffer::SubBuffer(const SubBufferLayout& layout)
    : layout_(layout), swap_(ringbuffer::needs_swap(layout)), start_(layout.data_offset) {}

Expected<SubBuffer> SubBuffer::alloc(SubBufferEndian endian, SubBufferLongSize long_size) {
    auto layout = SubBufferLayout::make(endian, long_size);
    if (!layout) return std::move(layout).error();
    return SubBuffer(*layout);
}

Status SubBuffer::load(std::span<const uint8_t> subbuf) {
    auto header = ringbuffer::read_page_header(subbuf, layout_);
    if (!header) {
        base_ = nullptr;
        data_ = nullptr;
        size_ = curr_ = next_ = index_ = first_ = 0;
        return std::move(header).error();
    }
    base_ = subbuf.data();
    data_ = base_ + start_;
    page_ts_ = header->timestamp;
    size_ = header->data_size;
    lost_ = header->lost;
    rewind();
    return Status::success();
}

void SubBuffer::rewind() noexcept {
    status_ = Status::success();
    ts_ = page_ts_;
    curr_ = next_ = index_ = 0;
    step();
    first_ = curr_;  // the first record that is not time metadata
}

bool SubBuffer::step() noexcept {
    for (;;) {
        curr_ = next_;
        if (next_ >= size_) return false;
        detail::RecordStep st;
        switch (decode(swap_, layout_.big_endian, data_, size_, curr_, ts_, st)) {
            case detail::RecordKind::data:
                index_ = st.index;
                next_ = st.next;
                return true;
            case detail::RecordKind::meta:
                index_ = st.index;
                next_ = st.next;
                break;
            case detail::RecordKind::end:
                index_ = std::min(curr_ + 4, size_);
                curr_ = next_ = size_;
                return false;
            case detail::RecordKind::corrupt:
                try {
                    status_ = Error(Errc::corrupt, "event record runs past the " + std::to_string(size_) +
                                                       " bytes of sub-buffer data")
                                  .at_offset(static_cast<int64_t>(start_) + curr_);
                } catch (...) {  // no memory for the text: still an error
                    status_ = Error(Errc::corrupt, std::string());
                }
                set_curr_to_end();
                return false;
        }
    }
}

const uint8_t* SubBuffer::read_event(uint64_t* ts) const noexcept {
    if (!base_ || curr_ >= size_) return nullptr;
    if (ts) *ts = ts_;
    return data_ + index_;
}

const uint8_t* SubBuffer::next_event(uint64_t* ts) noexcept {
    if (!base_ || !step()) return nullptr;
    if (ts) *ts = ts_;
    return data_ + index_;
}

const uint8_t* SubBuffer::read_at_offset(int offset, uint64_t* ts) noexcept {
    if (!base_) return nullptr;
    rewind();
    if (offset < 0) {
        set_curr_to_end();
        return nullptr;
    }
    const uint32_t off = static_cast<uint32_t>(offset) < start_ ? 0 : static_cast<uint32_t>(offset) - start_;
    const uint8_t* event = read_event(ts);
    // The record [curr, next) that holds `off`; time metadata before an event belongs to it.
    while (event && next_ <= off) event = next_event(ts);
    return event;
}

int SubBuffer::read_buffer(std::span<uint8_t> buffer) noexcept {
    if (!base_) return -1;
    int64_t len = static_cast<int64_t>(std::min<size_t>(buffer.size(), INT_MAX));
    const int64_t subbuf_size = int64_t{start_} + size_;

    // At the first record and everything fits: the sub-buffer as it is, flags and all.
    if (!curr_ && len >= subbuf_size) {
        std::memcpy(buffer.data(), base_, static_cast<size_t>(subbuf_size));
        set_curr_to_end();
        return static_cast<int>(size_);
    }
    if (curr_ >= size_) return 0;
    if (len < start_) return -1;
    if (len < int64_t{next_ - curr_} + start_) return -1;  // not even the current event fits

    // The new sub-buffer starts at the current event's time; its own delta becomes 0.
    ringbuffer::write_word(buffer.data(), 8, swap_, ts_);
    len -= start_;
    const uint32_t save_curr = curr_;
    uint32_t last_next;
    if (len >= int64_t{size_ - curr_}) {
        set_curr_to_end();
        last_next = size_;
    } else {
        // Every whole event that fits; the current one becomes the first left out. (Upstream
        // kbuffer leaves out an event that ends exactly at len, and then does not move past
        // a first event that fills len exactly, so a read loop would never end.)
        last_next = next_;
        while (next_event(nullptr) && int64_t{next_ - save_curr} <= len) last_next = next_;
    }
    const uint32_t n = last_next - save_curr;
    if (!n) return 0;
    std::memcpy(buffer.data() + start_, data_ + save_curr, n);
    uint32_t w = static_cast<uint32_t>(ringbuffer::read_word(buffer.data() + start_, 4, swap_));
    w &= layout_.big_endian ? ~((1u << 27) - 1) : 31u;
    ringbuffer::write_word(buffer.data() + start_, 4, swap_, w);
    ringbuffer::write_word(buffer.data() + 8, layout_.long_size, swap_, n);
    return static_cast<int>(last_next);
}

}  // namespace ringscope
