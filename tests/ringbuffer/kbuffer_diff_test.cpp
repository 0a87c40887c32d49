// Differential tests against Debian's libtraceevent (built only when pkg-config finds it): every
// kbuffer operation on the same bytes, and the oracle programs against ours.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "page_builder.hpp"
#include "ringscope/sub_buffer.hpp"
#include "test_util.hpp"

extern "C" {
#include <kbuffer.h>
}

namespace ringscope {
namespace {

struct Kbuf {
    kbuffer* k;
    Kbuf(bool big, unsigned lsize)
        : k(kbuffer_alloc(lsize == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
                          big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE)) {}
    ~Kbuf() { kbuffer_free(k); }
};

// Compares every operation of one sub-buffer. `page` is padded so kbuffer's unchecked reads stay
// inside it.
void compare_page(std::vector<uint8_t> page, bool big, unsigned lsize, const std::string& what) {
    SCOPED_TRACE(what);
    const uint32_t subbuf = static_cast<uint32_t>(page.size());
    page.resize(page.size() + 64, 0);
    auto layout =
        SubBufferLayout::make(big ? SubBufferEndian::big : SubBufferEndian::little,
                              lsize == 4 ? SubBufferLongSize::four : SubBufferLongSize::eight, subbuf);
    ASSERT_TRUE(layout);
    SubBuffer sb(*layout);
    Kbuf kb(big, lsize);
    ASSERT_TRUE(sb.load(std::span<const uint8_t>(page.data(), subbuf)));
    ASSERT_EQ(kbuffer_load_subbuffer(kb.k, page.data()), 0);
    EXPECT_EQ(sb.subbuffer_size(), kbuffer_subbuffer_size(kb.k));
    EXPECT_EQ(sb.start_of_data(), kbuffer_start_of_data(kb.k));
    EXPECT_EQ(sb.missed_events(), kbuffer_missed_events(kb.k));
    EXPECT_EQ(sb.subbuf_timestamp(), kbuffer_subbuf_timestamp(kb.k, page.data()));

    std::vector<int> starts;
    std::vector<uint64_t> stamps;
    for (;;) {
        uint64_t ts = 0;
        unsigned long long kts = 0;
        const uint8_t* ev = sb.read_event(&ts);
        auto* kev = static_cast<const uint8_t*>(kbuffer_read_event(kb.k, &kts));
        ASSERT_EQ(ev == nullptr, kev == nullptr);
        if (!ev) break;
        EXPECT_EQ(ev - page.data(), kev - page.data());
        EXPECT_EQ(ts, kts);
        EXPECT_EQ(sb.timestamp(), kbuffer_timestamp(kb.k));
        EXPECT_EQ(sb.curr_size(), kbuffer_curr_size(kb.k));
        EXPECT_EQ(sb.event_size(), kbuffer_event_size(kb.k));
        EXPECT_EQ(sb.curr_index(), kbuffer_curr_index(kb.k));
        EXPECT_EQ(sb.curr_offset(), kbuffer_curr_offset(kb.k));
        EXPECT_EQ(sb.missed_events(), kbuffer_missed_events(kb.k));
        starts.push_back(sb.curr_offset());
        stamps.push_back(ts);
        ts = kts = 0;
        ev = sb.next_event(&ts);
        kev = static_cast<const uint8_t*>(kbuffer_next_event(kb.k, &kts));
        ASSERT_EQ(ev == nullptr, kev == nullptr);
        if (ev) {
            EXPECT_EQ(ts, kts);
        }
    }
    EXPECT_TRUE(sb.status());

    // Record starts: the same answer. Inside a record: kbuffer 1.7.1 gives the next record,
    // ringscope the record that holds the offset (what the documentation promises).
    for (size_t i = 0; i < starts.size(); ++i) {
        unsigned long long kts = 0;
        uint64_t ts = 0;
        ASSERT_NE(sb.read_at_offset(starts[i], &ts), nullptr);
        ASSERT_NE(kbuffer_read_at_offset(kb.k, starts[i], &kts), nullptr);
        EXPECT_EQ(sb.curr_offset(), kbuffer_curr_offset(kb.k));
        EXPECT_EQ(ts, kts);
        const int inside = starts[i] + 1;
        if (sb.read_at_offset(inside, &ts)) {
            EXPECT_EQ(sb.curr_offset(), starts[i]);
        }
        void* knext = kbuffer_read_at_offset(kb.k, inside, &kts);
        if (i + 1 < starts.size()) {
            ASSERT_NE(knext, nullptr);
            EXPECT_EQ(kbuffer_curr_offset(kb.k), starts[i + 1]);
        } else {
            EXPECT_EQ(knext, nullptr);
        }
    }
}

std::vector<std::pair<std::string, uint32_t>> captures() {
    return {{"busy.cpu0", 4096}, {"busy.cpu1", 4096},   {"idle_gap", 4096},
            {"missed", 4096},    {"missed_page", 4096}, {"subbuf8k", 8192}};
}

TEST(KbufferDiff, EveryOperationOnCapturedPages) {
    for (const auto& [name, size] : captures()) {
        const auto bytes = test::read_bytes(test::data_dir() + "/" + name + ".raw");
        for (size_t off = 0; off + size <= bytes.size(); off += size) {
            compare_page(std::vector<uint8_t>(bytes.begin() + off, bytes.begin() + off + size), false, 8,
                         name + " @" + std::to_string(off));
        }
    }
}

std::vector<uint8_t> handmade(bool big, unsigned lsize, int variant) {
    test::PageBuilder b(big, lsize, 4096, variant == 2 ? 0xf800000000001000ull : 5000);
    switch (variant) {
        case 0:
            b.event(10, 8).extend((uint64_t{5} << 27) | 3).event(7, 16).absolute(0x0123456789).event(1, 120);
            b.padding(4, 16).event(2, 4).event(0, 5).event(9, 8, true);
            break;
        case 1:
            b.missed(4242).extend(uint64_t{1} << 33).event(1, 8).padding(0, 24);
            break;
        case 2:
            b.absolute((uint64_t{0x12345} << 27) | 5).event(7, 8).missed(std::nullopt);
            break;
        default:
            for (int i = 0; i < 40; ++i)
                b.event(static_cast<uint32_t>(i * 1000), static_cast<uint32_t>(4 + (i % 28) * 4));
            break;
    }
    return b.build();
}

TEST(KbufferDiff, EveryOperationOnHandBuiltPages) {
    for (bool big : {false, true}) {
        for (unsigned lsize : {4u, 8u}) {
            for (int v = 0; v < 4; ++v) {
                compare_page(handmade(big, lsize, v), big, lsize,
                             std::string(big ? "big" : "little") + " long " + std::to_string(lsize) + " v" +
                                 std::to_string(v));
            }
        }
    }
}

#ifdef KBUFFER_DUMP_ORACLE
// The oracle programs against ours, live: captured files and hand-built ones in every format.
TEST(KbufferDiff, OracleProgramsAgree) {
    for (const auto& [name, size] : captures()) {
        const std::string raw = test::data_dir() + "/" + name + ".raw";
        auto want =
            test::run_shell(std::string(KBUFFER_DUMP_ORACLE) + " " + raw + " " + std::to_string(size));
        ASSERT_EQ(want.status, 0);
        auto got = test::dump(raw, size_t{size});
        EXPECT_EQ(got.out, want.out) << name;
        auto want_read = test::run_shell(std::string(KBUFFER_READ_ORACLE) + " " + raw);
        auto got_read = test::run_shell(std::string(KBUFFER_READ_BIN) + " " + raw);
        EXPECT_EQ(got_read.out, want_read.out) << name;
        EXPECT_EQ(got_read.status, want_read.status) << name;
    }
    for (bool big : {false, true}) {
        for (unsigned lsize : {4u, 8u}) {
            std::vector<uint8_t> file;
            for (int v = 0; v < 4; ++v) {
                auto p = handmade(big, lsize, v);
                file.insert(file.end(), p.begin(), p.end());
            }
            const std::string path = test::temp_path("hand.raw");
            test::write_bytes(path, file);
            auto want = test::run_shell(std::string(KBUFFER_DUMP_ORACLE) + " " + path + " 4096 " +
                                        (big ? "big " : "little ") + std::to_string(lsize));
            auto layout =
                SubBufferLayout::make(big ? SubBufferEndian::big : SubBufferEndian::little,
                                      lsize == 4 ? SubBufferLongSize::four : SubBufferLongSize::eight, 4096);
            ASSERT_TRUE(layout);
            auto got = test::dump(path, *layout);
            std::filesystem::remove(path);
            EXPECT_EQ(got.out, want.out) << big << " " << lsize;
            EXPECT_EQ(got.err, "");
        }
    }
}
#endif

}  // namespace
}  // namespace ringscope

#ifdef KBUFFER_DUMP_ORACLE
namespace ringscope {
namespace {

// `ringscope dump-pages` on pages of a 32-bit and of a 64-bit kernel: with --long-size, and with the
// long size found from the data, libtraceevent's kbuffer told the right one.
TEST(KbufferDiff, DumpPagesCliLongSize) {
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    if (!std::filesystem::exists(bin)) GTEST_SKIP() << bin << " is not built";
    for (unsigned lsize : {4u, 8u}) {
        std::vector<uint8_t> file;
        for (int v : {3, 0, 3, 1}) {
            auto p = handmade(false, lsize, v);
            file.insert(file.end(), p.begin(), p.end());
        }
        const std::string path = test::temp_path("long" + std::to_string(lsize) + ".raw");
        test::write_bytes(path, file);
        const std::string ls = std::to_string(lsize);
        auto want = test::run_shell(std::string(KBUFFER_DUMP_ORACLE) + " " + path + " 4096 little " + ls);
        ASSERT_EQ(want.status, 0);
        auto given = test::run_shell(bin + " dump-pages " + path + " --long-size " + ls);
        EXPECT_EQ(given.status, 0);
        EXPECT_EQ(given.out, want.out) << "--long-size " << ls;
        auto found = test::run_shell(bin + " dump-pages " + path);
        EXPECT_EQ(found.status, 0);
        EXPECT_EQ(found.out, want.out) << "long size " << ls << " from the data";
        auto other =
            test::run_shell(bin + " dump-pages " + path + " --long-size " + (lsize == 4 ? "8" : "4"));
        EXPECT_NE(other.out, want.out);
    }
    auto bad = test::run_shell(bin + " dump-pages /dev/null --long-size 6 2>/dev/null");
    EXPECT_EQ(bad.status, 2);
}

}  // namespace
}  // namespace ringscope
#endif
