// One ftrace ring-buffer sub-buffer (what libtraceevent calls a kbuffer): the page header
// (u64 timestamp, a long "commit" word holding the data size and the missed-events flags), then
// compressed event records, then optionally the count of missed events.
//
// Three pieces:
// - SubBufferLayout: where things are, from the kernel's events/header_page or host defaults.
// - SubBuffer: every operation of libtraceevent's kbuffer API (kbuffer_read_event(3)), same
//   numbers, but bounds-checked: a sub-buffer is loaded from a span and nothing outside it is read.
// - SubBufferCursor: the zero-allocation walk for the engine; yields SubBufferRecord values.
//
// Record header (32 bits, in the data's byte order): type_len (5 bits) and time_delta (27 bits);
// the low bits of the word on little-endian data, the high bits on big-endian data.
// type_len 0: length in array[0]; 1..28: payload length type_len*4; 29 padding or a discarded
// event (length in array[0]); 30 time extend (delta = array[0] << 27 | time_delta); 31 absolute
// time stamp (the low 59 bits; the top 5 are kept from the running time).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "ringscope/error.hpp"

namespace ringscope {

enum class SubBufferEndian : uint8_t { host, big, little };
// The size of a kernel `long` (the commit word and the stored missed count). host: 8 on a
// 64-bit kernel, as libtraceevent decides it.
enum class SubBufferLongSize : uint8_t { host = 0, four = 4, eight = 8 };

struct SubBufferLayout {
    bool big_endian = std::endian::native == std::endian::big;  // byte order of the data
    uint8_t long_size = 8;                                      // bytes of the commit word (4 or 8)
    uint32_t data_offset = 16;                                  // where the records start: 8 + long_size
    uint32_t subbuf_size = 4096;  // header + data: the stride between sub-buffers of a raw file
    bool has_overwrite = true;    // header_page lists the "overwrite" byte inside the commit word
    uint64_t commit_mask = (uint64_t{1} << 27) - 1;   // the data size in the commit word
    uint64_t missed_events_flag = uint64_t{1} << 31;  // events were lost before this sub-buffer
    uint64_t missed_stored_flag = uint64_t{1} << 30;  // their count follows the data, as a long

    // The running kernel's layout: host byte order and long size, sub-buffer = page size.
    static SubBufferLayout host();
    // endian/long size as kbuffer_alloc takes them; subbuf_size 0 = the page size.
    static Expected<SubBufferLayout> make(SubBufferEndian endian, SubBufferLongSize long_size,
                                          uint32_t subbuf_size = 0);
    // From the text of events/header_page (also stored in every trace.dat). The byte order is not
    // in that file: it comes from the trace.dat header (or the host). Errors carry line:column.
    static Expected<SubBufferLayout> from_header_page(std::string_view text,
                                                      SubBufferEndian endian = SubBufferEndian::host);
};

// One event record of a sub-buffer, as the cursor yields it.
struct SubBufferRecord {
    uint64_t ts;          // absolute timestamp of the event (page time + deltas)
    const uint8_t* data;  // the payload (the event's fields), `size` bytes, inside the sub-buffer
    uint32_t size;        // payload bytes (kbuffer_event_size)
    uint32_t offset;      // offset of the record header from the sub-buffer start (kbuffer_curr_offset)
};

namespace detail {

enum class RecordKind : uint8_t { data, meta, end, corrupt };

struct RecordStep {
    uint32_t index;  // payload offset from the data start
    uint32_t next;   // next record offset from the data start
};

template <bool Swap>
inline uint32_t load32(const uint8_t* p) noexcept {
    uint32_t v;
    std::memcpy(&v, p, 4);
    if constexpr (Swap) v = __builtin_bswap32(v);
    return v;
}

inline constexpr uint64_t kTsMsb = uint64_t{0xf8} << 56;

// Decodes the record at `curr` of `d` (the data, `size` bytes of it valid) and updates `ts` the way
// kbuffer does. Never reads at or past d + size. `end`: no more records (padding reaching the end);
// `corrupt`: a record that does not fit (the caller reports it).
template <bool Swap, bool Big>
inline RecordKind decode_record(const uint8_t* d, uint32_t size, uint32_t curr, uint64_t& ts,
                                RecordStep& step) noexcept {
    if (size - curr < 4) return RecordKind::corrupt;  // curr < size holds here
    const uint32_t w = load32<Swap>(d + curr);
    const uint32_t type_len = Big ? w >> 27 : w & 31u;
    const uint32_t delta = Big ? w & ((1u << 27) - 1) : w >> 5;
    if (type_len - 1u < 28u) {  // 1..28: the common case
        const uint64_t next = uint64_t{curr} + 4 + type_len * 4u;
        if (next > size) return RecordKind::corrupt;
        ts += delta;
        step = {curr + 4, static_cast<uint32_t>(next)};
        return RecordKind::data;
    }
    const bool has_array = size - curr >= 8;
    const uint32_t array0 = has_array ? load32<Swap>(d + curr + 4) : 0;
    switch (type_len) {
        case 0: {
            // array[0] counts itself; the payload is rounded up to 4 bytes.
            if (!has_array || array0 < 4) return RecordKind::corrupt;
            const uint64_t next = uint64_t{curr} + 8 + ((uint64_t{array0} - 4 + 3) & ~uint64_t{3});
            if (next > size) return RecordKind::corrupt;
            ts += delta;
            step = {curr + 8, static_cast<uint32_t>(next)};
            return RecordKind::data;
        }
        case 29: {  // padding / discarded event: array[0] is the length after the header word
            const uint64_t next = uint64_t{curr} + 4 + array0;
            if (!has_array || next >= size) return RecordKind::end;
            ts += delta;
            step = {curr + 4, static_cast<uint32_t>(next)};
            return RecordKind::meta;
        }
        case 30:
            if (!has_array) return RecordKind::corrupt;
            ts += (uint64_t{array0} << 27) + delta;
            step = {curr + 8, curr + 8};
            return RecordKind::meta;
        default:  // 31, absolute time stamp
            if (!has_array) return RecordKind::corrupt;
            ts = ((uint64_t{array0} << 27) + delta) | (ts & kTsMsb);
            step = {curr + 8, curr + 8};
            return RecordKind::meta;
    }
}

}  // namespace detail

// libtraceevent's kbuffer, operation for operation (names without the kbuffer_ prefix). Offsets,
// indexes and sizes are the ints kbuffer returns. Differences: load() takes the bytes it may read
// and checks the header against them; a record that runs past the data stops the walk with an
// error in status() (kbuffer would hand out a pointer past the data); read_at_offset() finds the
// record that contains the offset, as its documentation says (libtraceevent 1.7.1 returns the
// first record at or after it: the same for offsets of record starts).
class SubBuffer {
  public:
    explicit SubBuffer(const SubBufferLayout& layout = SubBufferLayout::host());
    // kbuffer_alloc(long size, endian).
    static Expected<SubBuffer> alloc(SubBufferEndian endian, SubBufferLongSize long_size);

    // kbuffer_load_subbuffer. `subbuf` holds the sub-buffer (it may be longer: only the header,
    // the data and a stored missed count are read). Error offsets are from subbuf.data().
    Status load(std::span<const uint8_t> subbuf);
    bool loaded() const noexcept { return base_ != nullptr; }

    // kbuffer_read_event: the current event's payload (ts set), nullptr past the last one.
    const uint8_t* read_event(uint64_t* ts = nullptr) const noexcept;
    // kbuffer_next_event: moves on; the new current event or nullptr.
    const uint8_t* next_event(uint64_t* ts = nullptr) noexcept;
    // kbuffer_read_at_offset: offset from the sub-buffer start; makes that event the current one.
    const uint8_t* read_at_offset(int offset, uint64_t* ts = nullptr) noexcept;

    // kbuffer_missed_events: 0, the count, or -1 (unknown); like kbuffer, only while the first
    // record of the data (offset 0) is the current one. lost_events() is the page's value always.
    int missed_events() const noexcept { return curr_ ? 0 : static_cast<int>(lost_); }
    int64_t lost_events() const noexcept { return lost_; }
    int event_size() const noexcept { return static_cast<int>(next_ - index_); }
    int curr_size() const noexcept { return static_cast<int>(next_ - curr_); }
    int curr_offset() const noexcept { return static_cast<int>(curr_ + start_); }
    int curr_index() const noexcept { return static_cast<int>(curr_); }
    int subbuffer_size() const noexcept { return static_cast<int>(size_); }
    int start_of_data() const noexcept { return static_cast<int>(first_ + start_); }
    uint64_t timestamp() const noexcept { return ts_; }  // kbuffer_timestamp: current event
    uint64_t subbuf_timestamp() const noexcept { return page_ts_; }

    // kbuffer_read_buffer: copies the current event and the following ones that fit into
    // `buffer` as a new valid sub-buffer (own timestamp and commit word), and moves to the first
    // event not copied. Returns the data index after the last event copied, 0 when no event
    // remains, -1 when `buffer` holds none. When the current event is the first and the whole
    // sub-buffer fits, it is copied as it is (missed-events flags included), as kbuffer does.
    int read_buffer(std::span<uint8_t> buffer) noexcept;

    // Ok, or why the walk stopped early (a record that runs past the data).
    const Status& status() const noexcept { return status_; }
    const SubBufferLayout& layout() const noexcept { return layout_; }

  private:
    bool step() noexcept;  // kbuffer's next_event(): false at the end
    void rewind() noexcept;
    void set_curr_to_end() noexcept { curr_ = next_ = index_ = size_; }

    SubBufferLayout layout_;
    bool swap_ = false;
    const uint8_t* base_ = nullptr;
    const uint8_t* data_ = nullptr;
    uint64_t page_ts_ = 0;
    uint64_t ts_ = 0;
    int64_t lost_ = 0;
    uint32_t start_ = 16;
    uint32_t size_ = 0;
    uint32_t curr_ = 0;
    uint32_t next_ = 0;
    uint32_t index_ = 0;
    uint32_t first_ = 0;
    Status status_;
};

// The engine's walk over one sub-buffer: no allocation, no virtual call, the decode inlined.
//   SubBufferCursor cur(layout);
//   if (auto st = cur.reset(bytes); !st) ...;      // header checked against bytes.size()
//   for (SubBufferRecord r; cur.next(r);) use(r);  // same events and timestamps as kbuffer
//   if (cur.failed()) report(cur.error());         // a record ran past the data
class SubBufferCursor {
  public:
    SubBufferCursor() = default;
    explicit SubBufferCursor(const SubBufferLayout& layout) noexcept;

    // Starts on a sub-buffer; `subbuf` must outlive the walk. Error offsets are from its start.
    Status reset(std::span<const uint8_t> subbuf);
    bool next(SubBufferRecord& rec) noexcept {
        switch (mode_) {
            case 0:
                return next_impl<false, false>(rec);
            case 1:
                return next_impl<false, true>(rec);
            case 2:
                return next_impl<true, false>(rec);
            default:
                return next_impl<true, true>(rec);
        }
    }

    uint64_t page_timestamp() const noexcept { return page_ts_; }
    uint32_t data_size() const noexcept { return size_; }  // from the commit word
    uint32_t data_offset() const noexcept { return start_; }
    int64_t missed_events() const noexcept { return lost_; }  // 0, count, -1 unknown
    bool failed() const noexcept { return failed_; }
    const Error& error() const noexcept { return error_; }

  private:
    template <bool Swap, bool Big>
    bool next_impl(SubBufferRecord& rec) noexcept {
        while (pos_ < size_) {
            detail::RecordStep st;
            switch (detail::decode_record<Swap, Big>(data_, size_, pos_, ts_, st)) {
                case detail::RecordKind::data:
                    rec = {ts_, data_ + st.index, st.next - st.index, pos_ + start_};
                    pos_ = st.next;
                    return true;
                case detail::RecordKind::meta:
                    pos_ = st.next;
                    break;
                case detail::RecordKind::end:
                    pos_ = size_;
                    return false;
                case detail::RecordKind::corrupt:
                    fail();
                    return false;
            }
        }
        return false;
    }
    void fail() noexcept;

    SubBufferLayout layout_;
    uint8_t mode_ = 0;  // bit 1: swap bytes, bit 0: big-endian bit fields
    bool failed_ = false;
    const uint8_t* data_ = nullptr;
    uint32_t start_ = 16;
    uint32_t size_ = 0;
    uint32_t pos_ = 0;
    uint64_t ts_ = 0;
    uint64_t page_ts_ = 0;
    int64_t lost_ = 0;
    Error error_;
};

}  // namespace ringscope
