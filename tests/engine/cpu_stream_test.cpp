// CpuStream: records in order with kbuffer's timestamps, the missed-events rule, corrupt pages
// (records before the bad one are delivered, then an error with the file offset), and reverse.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "framework/engine/cpu_stream.hpp"
#include "framework/engine/trace_file.hpp"
#include "test_trace.hpp"

namespace ringscope::engine {
namespace {

using test::PageBuilder;

uint32_t tag_of(const Record& r) {
    uint32_t t;
    std::memcpy(&t, r.data, 4);
    return t;
}

struct Seen {
    uint64_t ts;
    uint32_t tag;
    int64_t missed;
};

std::vector<Seen> forward(CpuStream& s) {
    std::vector<Seen> out;
    while (const Record* r = s.peek()) {
        out.push_back({r->ts, tag_of(*r), r->missed});
        s.advance();
    }
    return out;
}

std::vector<Seen> backward(CpuStream& s) {
    std::vector<Seen> out;
    s.seek_end();
    while (const Record* r = s.peek_back()) {
        out.push_back({r->ts, tag_of(*r), r->missed});
        s.advance_back();
    }
    return out;
}

std::unique_ptr<TraceFile> open(const std::string& path) {
    auto f = TraceFile::open(path, OpenOptions{});
    EXPECT_TRUE(f) << (f ? "" : f.error().to_string());
    return f ? std::move(*f) : nullptr;
}

TEST(CpuStream, ForwardTimestampsTimeExtendsAndMissedEvents) {
    for (bool zstd : {false, true}) {
        auto path = test::write_trace(
            {{
                PageBuilder(1000).event(1000, 1).event(1005, 2).event(1000 + (uint64_t{5} << 27), 3).build(),
                PageBuilder(900000000000).missed(7).event(900000000010, 4).event(900000000020, 5).build(),
                PageBuilder(900000001000).missed(-1).event(900000001000, 6).build(),
            }},
            zstd);
        auto f = open(path);
        ASSERT_TRUE(f);
        auto streams = f->open_streams(0);
        ASSERT_TRUE(streams);
        ASSERT_EQ(streams->size(), 1u);
        auto seen = forward((*streams)[0]);
        ASSERT_EQ(seen.size(), 6u);
        const uint64_t want_ts[] = {1000,         1005,         1000 + (uint64_t{5} << 27),
                                    900000000010, 900000000020, 900000001000};
        const int64_t want_missed[] = {0, 0, 0, 7, 0, -1};
        for (size_t i = 0; i < 6; ++i) {
            EXPECT_EQ(seen[i].ts, want_ts[i]) << i;
            EXPECT_EQ(seen[i].tag, i + 1) << i;
            EXPECT_EQ(seen[i].missed, want_missed[i]) << i;
        }
        EXPECT_TRUE((*streams)[0].status());
    }
}

TEST(CpuStream, MissedEventsOnlyWhenTheFirstRecordIsAnEvent) {
    // kbuffer reports the page's lost events only while the first record of the data is the
    // current one: after a leading time extend, the first event does not carry them.
    auto path = test::write_trace({{
        PageBuilder(100).event(100, 1).build(),
        PageBuilder(200).missed(3).event(200 + (uint64_t{1} << 28), 2).build(),
    }});
    auto f = open(path);
    ASSERT_TRUE(f);
    auto streams = f->open_streams(0);
    ASSERT_TRUE(streams);
    auto seen = forward((*streams)[0]);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[1].missed, 0);
}

TEST(CpuStream, ReverseIsForwardReversed) {
    auto path = test::write_trace({{
                                      PageBuilder(10).event(10, 1).event(10, 2).event(30, 3).build(),
                                      PageBuilder(40).missed(2).event(40, 4).event(41, 5).build(),
                                      PageBuilder(50).build(),  // an empty page
                                      PageBuilder(60).event(70, 6).build(),
                                  }},
                                  true);
    auto f = open(path);
    ASSERT_TRUE(f);
    auto streams = f->open_streams(0);
    ASSERT_TRUE(streams);
    auto fw = forward((*streams)[0]);
    auto bw = backward((*streams)[0]);
    ASSERT_EQ(fw.size(), 6u);
    ASSERT_EQ(bw.size(), fw.size());
    for (size_t i = 0; i < fw.size(); ++i) {
        EXPECT_EQ(bw[fw.size() - 1 - i].tag, fw[i].tag);
        EXPECT_EQ(bw[fw.size() - 1 - i].ts, fw[i].ts);
        EXPECT_EQ(bw[fw.size() - 1 - i].missed, fw[i].missed);
    }
    // rewind() starts again at the first record.
    (*streams)[0].rewind();
    EXPECT_EQ(forward((*streams)[0]).size(), 6u);
}

TEST(CpuStream, CorruptPageMidFileStopsWithTheFileOffset) {
    auto path = test::write_trace({{
        PageBuilder(10).event(10, 1).event(20, 2).build(),
        PageBuilder(30).event(30, 3).raw_commit(100000).build(),  // data size past the page
        PageBuilder(40).event(40, 4).build(),
    }});
    auto f = open(path);
    ASSERT_TRUE(f);
    auto streams = f->open_streams(0);
    ASSERT_TRUE(streams);
    CpuStream& s = (*streams)[0];
    auto seen = forward(s);
    ASSERT_EQ(seen.size(), 2u);
    ASSERT_FALSE(s.status());
    const auto& cpu = f->reader().buffers()[0].cpus[0];
    EXPECT_GE(s.status().error().offset(), static_cast<int64_t>(cpu.offset + 4096));
    EXPECT_LT(s.status().error().offset(), static_cast<int64_t>(cpu.offset + 2 * 4096));
    // The error stays: peeking again does not go on past the bad page.
    EXPECT_EQ(s.peek(), nullptr);
}

// A page's records are decoded in one pass when it loads: pages of many records (the decode
// buffer grows), every field as the walk hands it out, and a corrupt record reported only once
// the records before it are taken.
TEST(CpuStream, PagesOfManyRecordsAndTheErrorAfterThem) {
    PageBuilder big(100);
    std::vector<Seen> want;
    for (uint32_t i = 0; i < 300; ++i) {
        big.event(100 + 3 * i, 1000 + i, 1);
        want.push_back({100 + 3 * i, 1000 + i, 0});
    }
    PageBuilder bad(2000);
    bad.event(2000, 7).event(2010, 8).event(2020, 9);
    auto path = test::write_trace({{
        PageBuilder(10).event(10, 1).build(), big.build(),
        bad.raw_commit(2 * 12 + 6).build(),  // the third record runs past the data
    }});
    auto f = open(path);
    ASSERT_TRUE(f);
    auto streams = f->open_streams(0);
    ASSERT_TRUE(streams);
    CpuStream& s = (*streams)[0];
    const auto& cpu = f->reader().buffers()[0].cpus[0];
    std::vector<Seen> seen;
    const Record* r = s.peek();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->offset, cpu.offset + s.pages().page_size() * 0 + 16);
    s.advance();
    for (size_t i = 0; i < 300; ++i) {
        r = s.peek();
        ASSERT_NE(r, nullptr) << i;
        EXPECT_EQ(r->record_size, 8u);
        EXPECT_EQ(r->offset, cpu.offset + 4096 + 16 + 8 * i);
        // the rest of the page, and the next page (the bad one), which the reader holds after it
        EXPECT_EQ(r->trailing, 4096 - 16 - 8 * (i + 1) + 4096);
        EXPECT_EQ(r->cpu, s.cpu());
        seen.push_back({r->ts, tag_of(*r), r->missed});
        s.advance();
    }
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(seen[i].ts, want[i].ts) << i;
        EXPECT_EQ(seen[i].tag, want[i].tag) << i;
    }
    // The bad page: its first two records, status still ok while they are taken, then the error.
    for (uint32_t tag : {7u, 8u}) {
        r = s.peek();
        ASSERT_NE(r, nullptr);
        EXPECT_EQ(tag_of(*r), tag);
        EXPECT_TRUE(s.status());
        s.advance();
    }
    EXPECT_EQ(s.peek(), nullptr);
    ASSERT_FALSE(s.status());
    EXPECT_GE(s.status().error().offset(), static_cast<int64_t>(cpu.offset + 2 * 4096));
    EXPECT_EQ(s.peek(), nullptr);

    // Reverse starts at the bad page: its two records, then it stops with the error.
    auto again = f->open_streams(0);
    ASSERT_TRUE(again);
    auto rev = backward((*again)[0]);
    ASSERT_EQ(rev.size(), 2u);
    EXPECT_EQ(rev[0].tag, 8u);
    EXPECT_EQ(rev[1].tag, 7u);
    EXPECT_FALSE((*again)[0].status());

    // Without the bad page, reverse is forward reversed across the big page.
    auto good_path = test::write_trace({{PageBuilder(10).event(10, 1).build(), big.build()}});
    auto good = open(good_path);
    ASSERT_TRUE(good);
    auto gs = good->open_streams(0);
    ASSERT_TRUE(gs);
    auto fwd = forward((*gs)[0]);
    auto back = backward((*gs)[0]);
    ASSERT_EQ(fwd.size(), 301u);
    ASSERT_EQ(back.size(), fwd.size());
    for (size_t i = 0; i < fwd.size(); ++i) {
        EXPECT_EQ(back[fwd.size() - 1 - i].ts, fwd[i].ts) << i;
        EXPECT_EQ(back[fwd.size() - 1 - i].tag, fwd[i].tag) << i;
    }
    EXPECT_TRUE((*gs)[0].status());
}

TEST(CpuStream, RecordRunningPastTheDataIsAnError) {
    PageBuilder p(10);
    p.event(10, 1).event(20, 2);
    // Commit covers the first record and half of the second.
    auto path = test::write_trace({{p.raw_commit(8 + 6).build()}});
    auto f = open(path);
    ASSERT_TRUE(f);
    auto streams = f->open_streams(0);
    ASSERT_TRUE(streams);
    auto seen = forward((*streams)[0]);
    EXPECT_EQ(seen.size(), 1u);
    EXPECT_FALSE((*streams)[0].status());
}

TEST(CpuStream, CommittedTracesReverseEqualsForward) {
    for (const char* name :
         {"traces/basic.dat", "traces/dropped.dat", "traces/instances.dat", "traces/formats-v6.dat"}) {
        auto f = open(test::data_path(name));
        ASSERT_TRUE(f) << name;
        for (size_t b = 0; b < f->buffer_count(); ++b) {
            auto streams = f->open_streams(b);
            ASSERT_TRUE(streams);
            for (auto& s : *streams) {
                auto fw = forward(s);
                auto bw = backward(s);
                ASSERT_EQ(fw.size(), bw.size()) << name;
                for (size_t i = 0; i < fw.size(); ++i) {
                    ASSERT_EQ(bw[fw.size() - 1 - i].ts, fw[i].ts);
                    ASSERT_EQ(bw[fw.size() - 1 - i].missed, fw[i].missed);
                }
                EXPECT_TRUE(s.status());
            }
        }
    }
}

// report -j lists the chunks of the CPUs in several threads: the same streams, and the same
// error (the first CPU's in file order) as one thread.
TEST(CpuStream, ChunksListedByThreadsGiveTheSameStreamsAndErrors) {
    auto f = open(test::data_path("traces/full.dat"));
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->reader().buffers()[0].compressed);
    ASSERT_GE(f->reader().buffers()[0].cpus.size(), 2u);
    auto one = f->open_streams(0, 1), three = f->open_streams(0, 3);
    ASSERT_TRUE(one && three);
    ASSERT_EQ(one->size(), three->size());
    for (size_t i = 0; i < one->size(); ++i) {
        const auto a = forward((*one)[i]), b = forward((*three)[i]);
        ASSERT_EQ(a.size(), b.size()) << "CPU " << i;
        for (size_t k = 0; k < a.size(); ++k) ASSERT_EQ(a[k].ts, b[k].ts) << "CPU " << i << " record " << k;
    }

    // Chunk counts that cannot be: CPU 1's alone, then CPUs 0 and 1.
    const std::string dir = std::filesystem::temp_directory_path() / "ringscope-chunk-lists";
    std::filesystem::create_directories(dir);
    const auto& cpus = f->reader().buffers()[0].cpus;
    for (size_t bad : {size_t{1}, size_t{2}}) {
        const std::string path = dir + "/bad" + std::to_string(bad) + ".dat";
        std::filesystem::copy_file(test::data_path("traces/full.dat"), path,
                                   std::filesystem::copy_options::overwrite_existing);
        {
            std::fstream out(path, std::ios::in | std::ios::out | std::ios::binary);
            const uint32_t huge = 0xfffffff0u;
            for (size_t c = 2 - bad; c < 2; ++c) {
                out.seekp(static_cast<std::streamoff>(cpus[c].offset));
                out.write(reinterpret_cast<const char*>(&huge), 4);
            }
        }
        auto g = open(path);
        ASSERT_TRUE(g);
        auto e1 = g->open_streams(0, 1), e3 = g->open_streams(0, 3);
        ASSERT_FALSE(e1);
        ASSERT_FALSE(e3);
        EXPECT_EQ(e1.error().to_string(), e3.error().to_string());
        EXPECT_EQ(e1.error().offset(), static_cast<int64_t>(cpus[2 - bad].offset)) << e1.error().to_string();
    }
}

}  // namespace
}  // namespace ringscope::engine
