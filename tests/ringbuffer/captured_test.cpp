// Real sub-buffers captured on the project's machine (tests/data/ringbuffer/capture.sh) against
// the committed libtraceevent outputs (make_expected.sh), and the cursor against SubBuffer.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ringscope/sub_buffer.hpp"
#include "test_util.hpp"

namespace ringscope {
namespace {

struct Capture {
    const char* name;
    uint32_t subbuf_size;
};

constexpr Capture kCaptures[] = {{"busy.cpu0", 4096}, {"busy.cpu1", 4096},   {"idle_gap", 4096},
                                 {"missed", 4096},    {"missed_page", 4096}, {"subbuf8k", 8192}};

class Captured : public ::testing::TestWithParam<Capture> {
  protected:
    std::string raw() const { return test::data_dir() + "/" + GetParam().name + ".raw"; }
    std::string expected(const char* ext) const {
        return test::data_dir() + "/expected/" + GetParam().name + ext;
    }
};

TEST_P(Captured, DumpPagesMatchesLibtraceevent) {
    auto r = test::dump(raw(), size_t{GetParam().subbuf_size});
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out, test::read_text(expected(".dump")));
}

TEST_P(Captured, KbufferReadExampleMatchesLibtraceevent) {
    auto r = test::run_shell(std::string(KBUFFER_READ_BIN) + " " + raw());
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, test::read_text(expected(".kbuffer_read")));
}

// The engine's cursor sees exactly what the kbuffer operations see.
TEST_P(Captured, CursorAgreesWithSubBuffer) {
    const auto bytes = test::read_bytes(raw());
    auto layout = SubBufferLayout::from_header_page(test::read_text(test::data_dir() + "/header_page"));
    ASSERT_TRUE(layout);
    layout->subbuf_size = GetParam().subbuf_size;
    ASSERT_EQ(bytes.size() % layout->subbuf_size, 0u);
    size_t total = 0;
    for (size_t off = 0; off < bytes.size(); off += layout->subbuf_size) {
        std::span<const uint8_t> page(bytes.data() + off, layout->subbuf_size);
        SubBuffer sb(*layout);
        SubBufferCursor cur(*layout);
        ASSERT_TRUE(sb.load(page));
        ASSERT_TRUE(cur.reset(page));
        EXPECT_EQ(cur.page_timestamp(), sb.subbuf_timestamp());
        EXPECT_EQ(cur.data_size(), static_cast<uint32_t>(sb.subbuffer_size()));
        EXPECT_EQ(cur.missed_events(), sb.lost_events());
        uint64_t ts = 0;
        SubBufferRecord r{};
        for (const uint8_t* ev = sb.read_event(&ts); ev; ev = sb.next_event(&ts)) {
            ASSERT_TRUE(cur.next(r));
            EXPECT_EQ(r.ts, ts);
            EXPECT_EQ(r.data, ev);
            EXPECT_EQ(static_cast<int>(r.size), sb.event_size());
            EXPECT_EQ(static_cast<int>(r.offset), sb.curr_offset());
            ++total;
        }
        EXPECT_FALSE(cur.next(r));
        EXPECT_FALSE(cur.failed());
        EXPECT_TRUE(sb.status());
    }
    EXPECT_GT(total, 0u);
}

// read_buffer in pieces of several sizes gives back every event of the real pages.
TEST_P(Captured, ReadBufferChains) {
    const auto bytes = test::read_bytes(raw());
    auto layout =
        SubBufferLayout::make(SubBufferEndian::host, SubBufferLongSize::host, GetParam().subbuf_size);
    ASSERT_TRUE(layout);
    for (size_t len : {size_t{512}, size_t{1000}, size_t{GetParam().subbuf_size}}) {
        for (size_t off = 0; off < bytes.size(); off += layout->subbuf_size) {
            std::span<const uint8_t> page(bytes.data() + off, layout->subbuf_size);
            std::vector<std::pair<uint64_t, std::vector<uint8_t>>> want, got;
            SubBufferCursor cur(*layout);
            ASSERT_TRUE(cur.reset(page));
            for (SubBufferRecord r; cur.next(r);)
                want.emplace_back(r.ts, std::vector<uint8_t>(r.data, r.data + r.size));
            SubBuffer sb(*layout);
            ASSERT_TRUE(sb.load(page));
            std::vector<uint8_t> out(len);
            for (int n, guard = 0; (n = sb.read_buffer(out)) > 0 && guard < 10000; ++guard) {
                SubBufferCursor part(*layout);
                ASSERT_TRUE(part.reset(out));
                for (SubBufferRecord r; part.next(r);)
                    got.emplace_back(r.ts, std::vector<uint8_t>(r.data, r.data + r.size));
            }
            EXPECT_EQ(got, want) << GetParam().name << " page at " << off << " len " << len;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Ringbuffer, Captured, ::testing::ValuesIn(kCaptures), [](const auto& info) {
    std::string n = info.param.name;
    for (char& c : n)
        if (c == '.') c = '_';
    return n;
});

TEST(DumpPages, TruncatedAndCorruptFiles) {
    auto page = test::read_bytes(test::data_dir() + "/idle_gap.raw");
    ASSERT_EQ(page.size(), 4096u);
    // Page 0 fine, page 1 with a commit larger than the page, page 2 cut short.
    std::vector<uint8_t> file(page);
    std::vector<uint8_t> bad(page);
    bad[9] = 0x40;  // commit 0x40f0 > 4080
    file.insert(file.end(), bad.begin(), bad.end());
    file.insert(file.end(), page.begin(), page.begin() + 1000);
    const std::string path = test::temp_path("dump.raw");
    test::write_bytes(path, file);
    auto r = test::dump(path, size_t{0});
    std::filesystem::remove(path);
    EXPECT_EQ(r.rc, 1);  // sub-buffers that do not load: told, and the exit code says so
    const std::string want_pages = test::read_text(test::data_dir() + "/expected/idle_gap.dump");
    EXPECT_EQ(r.out, want_pages + "page 1 offset 4096: load failed\npage 2 offset 8192: load failed\n");
    EXPECT_NE(r.err.find("offset 4104 (0x1008): commit size"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("offset 8192 (0x2000): file ends 1000 bytes into a 4096-byte sub-buffer"),
              std::string::npos)
        << r.err;
}

TEST(DumpPages, ARecordPastTheDataEndsThePage) {
    auto page = test::read_bytes(test::data_dir() + "/idle_gap.raw");
    // The fourth record (a time extend at index 84) becomes a 112-byte event running past 240.
    uint32_t w = 28;
    std::memcpy(&page[16 + 84 + 0], &w, 4);
    page[16 + 236] = 0;
    page[8] = 100;  // data size 100: the record at index 84 runs past it
    const std::string path = test::temp_path("corrupt.raw");
    test::write_bytes(path, page);
    auto r = test::dump(path, size_t{4096});
    std::filesystem::remove(path);
    EXPECT_EQ(r.rc, 1);  // the page is printed, and the bad record fails the run (issue #27)
    EXPECT_NE(r.out.find("page 0: 3 events\n"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("offset 100 (0x64): event record runs past the 100 bytes"), std::string::npos)
        << r.err;
}

TEST(DumpPages, UnreadableInput) {
    auto r = test::dump(std::string("/nonexistent/ringscope.raw"), size_t{0});
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.err.find("/nonexistent/ringscope.raw"), std::string::npos);
    r = test::dump(test::data_dir() + "/idle_gap.raw", size_t{8});
    EXPECT_EQ(r.rc, 2);  // no sub-buffer size the kernel can have: a usage error
    EXPECT_NE(r.err.find("a power of two from 4096"), std::string::npos) << r.err;
}

TEST(KbufferRead, UsageAndMissingFile) {
    auto r = test::run_shell(std::string(KBUFFER_READ_BIN));
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string("usage: ") + KBUFFER_READ_BIN +
                         " raw-subbuffer-page\n Try: dd count=1 bs=4096 "
                         "if=/sys/kernel/tracing/per_cpu/cpu0/trace_pipe_raw of=/tmp/file\n");
    r = test::run_shell(std::string(KBUFFER_READ_BIN) + " /nonexistent/page 2>/dev/null");
    EXPECT_EQ(r.status, 255);
    EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace ringscope

namespace ringscope {
namespace {

// Real pages with random bytes changed, walked by every operation inside exactly-sized heap
// buffers: under ASan any read past the sub-buffer fails the test.
TEST(SubBufferFuzz, MutatedRealPagesStayInside) {
    const auto bytes = test::read_bytes(test::data_dir() + "/busy.cpu0.raw");
    const auto layout = SubBufferLayout::host();
    ASSERT_EQ(layout.subbuf_size, 4096u);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    auto next = [&rng] {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    };
    size_t loaded = 0, events = 0;
    for (int iter = 0; iter < 3000; ++iter) {
        const size_t page_no = next() % (bytes.size() / 4096);
        // Sometimes cut short, to look like a truncated read.
        const size_t len = next() % 8 == 0 ? next() % 4096 : 4096;
        std::vector<uint8_t> page(bytes.begin() + page_no * 4096, bytes.begin() + page_no * 4096 + len);
        const int flips = 1 + static_cast<int>(next() % 8);
        for (int f = 0; f < flips && !page.empty(); ++f) {
            const size_t at = next() % 8 == 0 ? 8 + next() % 8 : next() % page.size();
            if (at < page.size()) page[at] = static_cast<uint8_t>(next());
        }
        SubBuffer sb(layout);
        SubBufferCursor cur(layout);
        const bool ok = static_cast<bool>(sb.load(page));
        EXPECT_EQ(ok, static_cast<bool>(cur.reset(page)));
        if (!ok) continue;
        ++loaded;
        uint64_t sum = 0, ts = 0;
        for (const uint8_t* ev = sb.read_event(&ts); ev; ev = sb.next_event(&ts)) {
            for (int i = 0; i < sb.event_size(); ++i) sum += ev[i];
            ++events;
        }
        for (SubBufferRecord r; cur.next(r);) {
            for (uint32_t i = 0; i < r.size; ++i) sum -= r.data[i];
        }
        EXPECT_EQ(sum, 0u);  // both walks saw the same payload bytes
        EXPECT_EQ(sb.status().ok(), !cur.failed());
        sb.read_at_offset(static_cast<int>(next() % 5000), &ts);
        std::vector<uint8_t> out(next() % 4200);
        ASSERT_TRUE(sb.load(page));
        for (int guard = 0; sb.read_buffer(out) > 0 && guard < 5000; ++guard) {
        }
    }
    EXPECT_GT(loaded, 100u);
    EXPECT_GT(events, 1000u);
}

}  // namespace
}  // namespace ringscope

namespace ringscope {
namespace {

// The CLI wiring of dump_pages (framework/cli), when that binary has been built.
TEST(DumpPagesCli, MatchesLibtraceevent) {
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    if (!std::filesystem::exists(bin)) GTEST_SKIP() << bin << " is not built";
    for (const auto& c : kCaptures) {
        const std::string size = c.subbuf_size == 4096 ? "" : " " + std::to_string(c.subbuf_size);
        auto r = test::run_shell(bin + " dump-pages " + test::data_dir() + "/" + c.name + ".raw" + size);
        EXPECT_EQ(r.status, 0) << c.name;
        EXPECT_EQ(r.out, test::read_text(test::data_dir() + "/expected/" + c.name + ".dump")) << c.name;
    }
    auto r = test::run_shell(bin + " dump-pages /nonexistent/ringscope.raw 2>/dev/null");
    EXPECT_EQ(r.status, 1);
}

}  // namespace
}  // namespace ringscope
