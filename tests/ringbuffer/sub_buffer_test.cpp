// SubBuffer and SubBufferCursor on hand-built sub-buffers: every record type, every byte order and
// long size, corrupt headers and records.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "page_builder.hpp"
#include "ringscope/sub_buffer.hpp"

namespace ringscope {
namespace {

using test::PageBuilder;

struct Seen {
    uint64_t ts;
    int curr_size, event_size, index, offset;
    std::vector<uint8_t> payload;
    bool operator==(const Seen&) const = default;
};

std::vector<Seen> walk(SubBuffer& sb) {
    std::vector<Seen> out;
    uint64_t ts = 0;
    for (const uint8_t* ev = sb.read_event(&ts); ev; ev = sb.next_event(&ts)) {
        out.push_back({ts, sb.curr_size(), sb.event_size(), sb.curr_index(), sb.curr_offset(),
                       std::vector<uint8_t>(ev, ev + sb.event_size())});
    }
    return out;
}

std::vector<Seen> walk_cursor(const SubBufferLayout& layout, const std::vector<uint8_t>& page) {
    SubBufferCursor cur(layout);
    EXPECT_TRUE(cur.reset(page));
    std::vector<Seen> out;
    for (SubBufferRecord r; cur.next(r);) {
        const int off = static_cast<int>(r.offset);
        const int index = off - static_cast<int>(layout.data_offset);
        const int meta = static_cast<int>(r.data - page.data()) - off;
        out.push_back({r.ts, meta + static_cast<int>(r.size), static_cast<int>(r.size), index, off,
                       std::vector<uint8_t>(r.data, r.data + r.size)});
    }
    return out;
}

SubBufferLayout layout_of(bool big, unsigned lsize, uint32_t subbuf = 4096) {
    auto l = SubBufferLayout::make(big ? SubBufferEndian::big : SubBufferEndian::little,
                                   lsize == 4 ? SubBufferLongSize::four : SubBufferLongSize::eight, subbuf);
    EXPECT_TRUE(l);
    return *l;
}

// Data event, time extend + event, absolute stamp + type_len 0 event, discarded event + event.
PageBuilder mixed(bool big, unsigned lsize) {
    PageBuilder b(big, lsize, 4096, 1000);
    b.event(10, 8).extend((uint64_t{5} << 27) | 3).event(7, 16).absolute(0x0123456789).event(1, 120);
    b.padding(4, 16).event(2, 4);
    return b;
}

constexpr uint64_t kTs1 = 1000 + 10 + (uint64_t{5} << 27) + 3 + 7;
constexpr uint64_t kTs2 = 0x0123456789 + 1;

class AllFormats : public ::testing::TestWithParam<std::pair<bool, unsigned>> {};

TEST_P(AllFormats, EveryRecordType) {
    const auto [big, lsize] = GetParam();
    const auto layout = layout_of(big, lsize);
    const auto page = mixed(big, lsize).build();
    SubBuffer sb(layout);
    ASSERT_TRUE(sb.load(page));
    const int s = static_cast<int>(layout.data_offset);
    EXPECT_EQ(sb.subbuffer_size(), 200);
    EXPECT_EQ(sb.start_of_data(), s);
    EXPECT_EQ(sb.subbuf_timestamp(), 1000u);
    EXPECT_EQ(sb.missed_events(), 0);
    const auto events = walk(sb);
    ASSERT_EQ(events.size(), 4u);
    EXPECT_TRUE(sb.status());
    const Seen want[] = {
        {1010, 12, 8, 0, s + 0, {}},
        {kTs1, 20, 16, 20, s + 20, {}},
        {kTs2, 128, 120, 48, s + 48, {}},
        {kTs2 + 4 + 2, 8, 4, 192, s + 192, {}},
    };
    uint8_t counter = 1;
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(events[i].ts, want[i].ts) << i;
        EXPECT_EQ(events[i].curr_size, want[i].curr_size) << i;
        EXPECT_EQ(events[i].event_size, want[i].event_size) << i;
        EXPECT_EQ(events[i].index, want[i].index) << i;
        EXPECT_EQ(events[i].offset, want[i].offset) << i;
        for (uint8_t b : events[i].payload) EXPECT_EQ(b, counter++) << i;
    }
    EXPECT_EQ(walk_cursor(layout, page), events);
}

INSTANTIATE_TEST_SUITE_P(ByteOrderAndLong, AllFormats,
                         ::testing::Values(std::pair{false, 8u}, std::pair{true, 8u}, std::pair{false, 4u},
                                           std::pair{true, 4u}));

TEST(SubBuffer, AbsoluteStampKeepsTopBits) {
    PageBuilder b(false, 8, 4096, 0xf800000000001000ull);
    b.absolute((uint64_t{0x12345} << 27) | 5).event(7, 8);
    SubBuffer sb(layout_of(false, 8));
    ASSERT_TRUE(sb.load(b.build()));
    uint64_t ts = 0;
    ASSERT_TRUE(sb.read_event(&ts));
    EXPECT_EQ(ts, 0xf800091a2800000cull);  // what libtraceevent 1.7.1 returns for this page
    EXPECT_EQ(sb.start_of_data(), 16 + 8);
}

TEST(SubBuffer, MissedEvents) {
    const auto layout = layout_of(false, 8);
    SubBuffer sb(layout);
    auto unknown = PageBuilder(false, 8, 4096, 1).missed(std::nullopt).event(0, 8).build();
    ASSERT_TRUE(sb.load(unknown));
    EXPECT_EQ(sb.missed_events(), -1);
    auto counted = PageBuilder(false, 8, 4096, 1).missed(123456).event(0, 8).event(1, 8).build();
    ASSERT_TRUE(sb.load(counted));
    EXPECT_EQ(sb.missed_events(), 123456);
    EXPECT_EQ(sb.subbuffer_size(), 24);
    ASSERT_TRUE(sb.next_event());
    EXPECT_EQ(sb.missed_events(), 0);  // only the first record carries them
    EXPECT_EQ(sb.lost_events(), 123456);
    // kbuffer reports them only while the current record is at index 0: a leading time extend
    // hides them. lost_events() does not.
    auto behind_extend =
        PageBuilder(false, 8, 4096, 1).missed(77).extend(uint64_t{1} << 30).event(0, 8).build();
    ASSERT_TRUE(sb.load(behind_extend));
    EXPECT_EQ(sb.missed_events(), 0);
    EXPECT_EQ(sb.lost_events(), 77);
    SubBufferCursor cur(layout);
    ASSERT_TRUE(cur.reset(behind_extend));
    EXPECT_EQ(cur.missed_events(), 77);
    // 32-bit big-endian: the count is a 4-byte long.
    auto be4 = PageBuilder(true, 4, 4096, 1).missed(99).event(0, 8).build();
    SubBuffer sb4(layout_of(true, 4));
    ASSERT_TRUE(sb4.load(be4));
    EXPECT_EQ(sb4.missed_events(), 99);
}

TEST(SubBuffer, PaddingEndsTheData) {
    SubBuffer sb(layout_of(false, 8));
    auto tail = PageBuilder(false, 8, 4096, 5).event(1, 8).padding(0, 40).build();
    ASSERT_TRUE(sb.load(tail));
    EXPECT_EQ(walk(sb).size(), 1u);
    EXPECT_TRUE(sb.status());
    // A null padding word at the very end, without room for array[0].
    auto null_pad = PageBuilder(false, 8, 4096, 5).event(1, 8).raw32(29).build();
    ASSERT_TRUE(sb.load(null_pad));
    EXPECT_EQ(walk(sb).size(), 1u);
    EXPECT_TRUE(sb.status());
    // Padding whose length points far past the data: the end, not a read past it.
    auto far = PageBuilder(false, 8, 4096, 5).event(1, 8).raw32(29).raw32(0xfffffff0u).event(1, 8).build();
    ASSERT_TRUE(sb.load(far));
    EXPECT_EQ(walk(sb).size(), 1u);
}

TEST(SubBuffer, TypeLenZeroRoundsUp) {
    // array[0] = 5 + 4: a 5-byte payload takes 8 bytes, as kbuffer rounds it.
    auto page = PageBuilder(false, 8, 4096, 5).event(0, 5).event(1, 4).build();
    SubBuffer sb(layout_of(false, 8));
    ASSERT_TRUE(sb.load(page));
    auto ev = walk(sb);
    ASSERT_EQ(ev.size(), 2u);
    EXPECT_EQ(ev[0].event_size, 8);
    EXPECT_EQ(ev[0].curr_size, 16);
    EXPECT_EQ(ev[1].index, 16);
    // type_len 0 forced for a small payload is read the same way.
    auto forced = PageBuilder(false, 8, 4096, 5).event(3, 8, true).build();
    ASSERT_TRUE(sb.load(forced));
    ev = walk(sb);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].curr_size, 16);
    EXPECT_EQ(ev[0].event_size, 8);
}

TEST(SubBuffer, CorruptRecordsStopCleanly) {
    const auto layout = layout_of(false, 8);
    SubBuffer sb(layout);
    // type_len 28 (112 bytes) with 8 bytes of data left.
    auto past_end = PageBuilder(false, 8, 4096, 5).event(1, 8).raw32(28).raw32(0).raw32(0).build();
    ASSERT_TRUE(sb.load(past_end));
    EXPECT_EQ(walk(sb).size(), 1u);
    ASSERT_FALSE(sb.status());
    EXPECT_EQ(sb.status().error().code(), Errc::corrupt);
    EXPECT_EQ(sb.status().error().offset(), 16 + 12);
    SubBufferCursor cur(layout);
    ASSERT_TRUE(cur.reset(past_end));
    SubBufferRecord r;
    EXPECT_TRUE(cur.next(r));
    EXPECT_FALSE(cur.next(r));
    EXPECT_TRUE(cur.failed());
    EXPECT_EQ(cur.error().offset(), 16 + 12);
    EXPECT_FALSE(cur.next(r));

    // type_len 0 whose array[0] is below its own size, or missing.
    for (auto page : {PageBuilder(false, 8, 4096, 5).raw32(0).raw32(2).build(),
                      PageBuilder(false, 8, 4096, 5).event(1, 8).raw32(0).build(),
                      PageBuilder(false, 8, 4096, 5).raw32(0).raw32(0x7ffffff0).build(),
                      PageBuilder(false, 8, 4096, 5).raw32(30).build()}) {
        ASSERT_TRUE(sb.load(page));
        walk(sb);
        EXPECT_FALSE(sb.status());
        ASSERT_TRUE(cur.reset(page));
        while (cur.next(r)) {
        }
        EXPECT_TRUE(cur.failed());
    }
    // A data size that ends inside a record header.
    auto ragged = PageBuilder(false, 8, 4096, 5).event(1, 8).build(14);
    ASSERT_TRUE(sb.load(ragged));
    EXPECT_EQ(walk(sb).size(), 1u);
    EXPECT_FALSE(sb.status());
}

TEST(SubBuffer, CorruptHeaders) {
    const auto layout = layout_of(false, 8);
    SubBuffer sb(layout);
    SubBufferCursor cur(layout);
    auto big_commit = PageBuilder(false, 8, 4096, 5).event(1, 8).build(5000);
    auto st = sb.load(big_commit);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code(), Errc::corrupt);
    EXPECT_EQ(st.error().offset(), 8);
    EXPECT_FALSE(sb.loaded());
    EXPECT_EQ(sb.read_event(), nullptr);
    EXPECT_EQ(sb.next_event(), nullptr);
    EXPECT_EQ(sb.read_at_offset(16), nullptr);
    EXPECT_FALSE(cur.reset(big_commit));
    SubBufferRecord r;
    EXPECT_FALSE(cur.next(r));

    std::vector<uint8_t> tiny(10, 0);
    st = sb.load(tiny);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code(), Errc::truncated);
    // The data fills the sub-buffer: no room for the stored count the flags promise.
    auto no_room = PageBuilder(false, 8, 4096, 5).missed(5).event(1, 8).build(4080);
    st = sb.load(no_room);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code(), Errc::corrupt);
    EXPECT_EQ(st.error().offset(), 4096);
    // A span shorter than what the commit says (a truncated file).
    auto page = mixed(false, 8).build();
    EXPECT_FALSE(sb.load(std::span<const uint8_t>(page.data(), 100)));
    EXPECT_TRUE(sb.load(std::span<const uint8_t>(page.data(), 216)));
}

TEST(SubBuffer, ReadAtOffsetFindsTheRecordHoldingIt) {
    const auto page = mixed(false, 8).build();
    SubBuffer sb(layout_of(false, 8));
    ASSERT_TRUE(sb.load(page));
    const uint64_t ts_of[] = {1010, kTs1, kTs2, kTs2 + 6};
    const int offset_of[] = {16, 36, 64, 208};
    for (int off = -3; off < 240; ++off) {
        const int d = off < 16 ? 0 : off - 16;
        const int want = d < 12 ? 0 : d < 40 ? 1 : d < 176 ? 2 : d < 200 ? 3 : -1;
        uint64_t ts = 0;
        const uint8_t* ev = sb.read_at_offset(off, &ts);
        if (want < 0 || off < 0) {
            EXPECT_EQ(ev, nullptr) << off;
            continue;
        }
        ASSERT_NE(ev, nullptr) << off;
        EXPECT_EQ(sb.curr_offset(), offset_of[want]) << off;
        EXPECT_EQ(ts, ts_of[want]) << off;
        EXPECT_EQ(sb.timestamp(), ts_of[want]) << off;
        uint64_t again = 0;
        EXPECT_EQ(sb.read_event(&again), ev);  // it became the current event
        EXPECT_EQ(again, ts);
    }
    // next_event() goes on from there.
    ASSERT_TRUE(sb.read_at_offset(36));
    uint64_t ts = 0;
    ASSERT_TRUE(sb.next_event(&ts));
    EXPECT_EQ(ts, kTs2);
}

// Events as (ts, payload) from a chain of sub-buffers.
std::vector<std::pair<uint64_t, std::vector<uint8_t>>> events_of(const SubBufferLayout& layout,
                                                                 const std::vector<uint8_t>& page) {
    std::vector<std::pair<uint64_t, std::vector<uint8_t>>> out;
    SubBufferCursor cur(layout);
    EXPECT_TRUE(cur.reset(page));
    for (SubBufferRecord r; cur.next(r);)
        out.emplace_back(r.ts, std::vector<uint8_t>(r.data, r.data + r.size));
    EXPECT_FALSE(cur.failed());
    return out;
}

TEST(SubBuffer, ReadBufferWholeAndFromTheMiddle) {
    for (auto [big, lsize] : {std::pair{false, 8u}, std::pair{true, 4u}}) {
        const auto layout = layout_of(big, lsize);
        const int s = static_cast<int>(layout.data_offset);
        auto page = mixed(big, lsize).missed(std::nullopt).build();
        SubBuffer sb(layout);
        ASSERT_TRUE(sb.load(page));
        std::vector<uint8_t> out(4096, 0);
        // At the start with room for all: the same bytes, flags included.
        EXPECT_EQ(sb.read_buffer(out), 200);
        EXPECT_TRUE(std::equal(page.begin(), page.begin() + s + 200, out.begin()));
        EXPECT_EQ(sb.read_buffer(out), 0);

        // From event 1: a new sub-buffer with event 1's time, no flags, data size 180.
        ASSERT_TRUE(sb.load(page));
        ASSERT_TRUE(sb.next_event());
        std::fill(out.begin(), out.end(), 0);
        EXPECT_EQ(sb.read_buffer(out), 200);
        EXPECT_EQ(sb.read_event(), nullptr);
        SubBuffer copy(layout);
        ASSERT_TRUE(copy.load(out));
        EXPECT_EQ(copy.subbuf_timestamp(), kTs1);
        EXPECT_EQ(copy.subbuffer_size(), 180);
        EXPECT_EQ(copy.missed_events(), 0);
        auto all = events_of(layout, page);
        auto tail = events_of(layout, out);
        ASSERT_EQ(tail.size(), 3u);
        EXPECT_TRUE(std::equal(tail.begin(), tail.end(), all.begin() + 1));
    }
}

TEST(SubBuffer, ReadBufferInPieces) {
    const auto layout = layout_of(false, 8);
    const auto page = mixed(false, 8).build();
    SubBuffer sb(layout);
    ASSERT_TRUE(sb.load(page));
    std::vector<uint8_t> out(64);
    // Event 0, the time extend and event 1 end at index 40 and fit 64 - 16 bytes.
    EXPECT_EQ(sb.read_buffer(out), 40);
    EXPECT_EQ(sb.curr_index(), 48);
    // Event 2 needs 128 + 16.
    EXPECT_EQ(sb.read_buffer(out), -1);
    EXPECT_EQ(sb.read_buffer(std::span<uint8_t>(out.data(), 8)), -1);
    // An event that fills len exactly is taken, and the buffer moves past it.
    ASSERT_TRUE(sb.load(page));
    EXPECT_EQ(sb.read_buffer(std::span<uint8_t>(out.data(), 16 + 12)), 12);
    EXPECT_EQ(sb.curr_index(), 20);
    EXPECT_EQ(events_of(layout, std::vector<uint8_t>(out.begin(), out.begin() + 28)).size(), 1u);
}

TEST(SubBuffer, ReadBufferChainKeepsEveryEvent) {
    const auto layout = layout_of(false, 8);
    const auto page = mixed(false, 8).build();
    const auto all = events_of(layout, page);
    for (size_t len = 16 + 128; len <= 260; len += 4) {
        SubBuffer sb(layout);
        ASSERT_TRUE(sb.load(page));
        std::vector<std::pair<uint64_t, std::vector<uint8_t>>> got;
        std::vector<uint8_t> out(len);
        int guard = 0;
        for (int r; (r = sb.read_buffer(out)) > 0 && guard < 100; ++guard) {
            std::vector<uint8_t> sub(out);
            sub.resize(std::max<size_t>(sub.size(), 16));
            auto part = events_of(layout, sub);
            got.insert(got.end(), part.begin(), part.end());
        }
        EXPECT_EQ(got, all) << len;
    }
}

}  // namespace
}  // namespace ringscope
