// One sub-buffer, every kbuffer operation, for each byte order and long size.
#include <cstdint>
#include <vector>

#include <ringscope/sub_buffer.hpp>

using namespace ringscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const uint8_t mode = data[0];
    std::span<const uint8_t> page(data + 1, size - 1);
    auto alloc = SubBuffer::alloc((mode & 1) ? SubBufferEndian::big : SubBufferEndian::little,
                                  (mode & 2) ? SubBufferLongSize::four : SubBufferLongSize::eight);
    if (!alloc) return 0;
    SubBuffer kb = std::move(*alloc);
    if (!kb.load(page)) return 0;
    uint64_t ts = 0;
    int n = 0;
    std::vector<int> offsets;
    for (const uint8_t* ev = kb.read_event(&ts); ev && n < 10000; ev = kb.next_event(&ts), ++n) {
        offsets.push_back(kb.curr_offset());
        (void)kb.event_size();
        (void)kb.curr_size();
        (void)kb.curr_index();
        (void)kb.missed_events();
    }
    for (int off : offsets) (void)kb.read_at_offset(off + (mode >> 4), &ts);
    if (!offsets.empty()) {
        (void)kb.read_at_offset(offsets.front(), &ts);
        std::vector<uint8_t> copy(static_cast<size_t>(mode) * 16 + 8);
        (void)kb.read_buffer(copy);
    }
    SubBufferCursor cursor(kb.layout());
    if (cursor.reset(page))
        for (SubBufferRecord r; cursor.next(r);) {
        }
    return 0;
}
