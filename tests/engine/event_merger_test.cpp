// EventMerger: time order across CPUs and files, ties to the source added first (libtracecmd's
// strict "<" over CPUs in order), reverse = forward reversed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "framework/engine/event_merger.hpp"
#include "framework/engine/trace_set.hpp"
#include "test_trace.hpp"

namespace ringscope::engine {
namespace {

using test::PageBuilder;

struct Item {
    uint64_t ts;
    uint32_t tag;
    int global_cpu;
    bool operator==(const Item&) const = default;
};

std::vector<Item> drain(EventMerger& m, bool reverse) {
    std::vector<Item> out;
    const Record* r = nullptr;
    MergeSource* s = nullptr;
    while (reverse ? m.next_back(r, s) : m.next(r, s)) {
        uint32_t tag;
        std::memcpy(&tag, r->data, 4);
        out.push_back({r->ts, tag, s->global_cpu});
    }
    return out;
}

class MergerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        // CPU 0: 10, 20, 20, 40; CPU 1: 20, 30, 40; CPU 2: 5, 40 (two pages).
        a_ = test::write_trace({
            {PageBuilder(10).event(10, 100).event(20, 101).build(),
             PageBuilder(20).event(20, 102).event(40, 103).build()},
            {PageBuilder(20).event(20, 200).event(30, 201).event(40, 202).build()},
            {PageBuilder(5).event(5, 300).build(), PageBuilder(40).event(40, 301).build()},
        });
        // A second file: 20 and 40 again.
        b_ = test::write_trace({{PageBuilder(20).event(20, 400).event(40, 401).build()}});
        ASSERT_TRUE(set_.add_file(a_, OpenOptions{}));
        ASSERT_TRUE(set_.add_file(b_, OpenOptions{}));
    }
    std::string a_, b_;
    TraceSet set_;
};

TEST_F(MergerTest, ForwardOrderWithTiesToTheEarlierSource) {
    EventMerger m;
    const auto order = set_.buffer_order();
    ASSERT_TRUE(set_.build_merger(order, {}, m));
    auto got = drain(m, false);
    std::vector<uint32_t> tags;
    for (const auto& i : got) tags.push_back(i.tag);
    const std::vector<uint32_t> want = {300, 100, 101, 102, 200, 400, 201, 103, 202, 301, 401};
    EXPECT_EQ(tags, want);
    // The n-th CPU across the files.
    EXPECT_EQ(got.back().global_cpu, 3);
    EXPECT_EQ(got.front().global_cpu, 2);
}

TEST_F(MergerTest, ReverseIsForwardReversed) {
    const auto order = set_.buffer_order();
    EventMerger fw, bw;
    ASSERT_TRUE(set_.build_merger(order, {}, fw));
    ASSERT_TRUE(set_.build_merger(order, {}, bw));
    auto f = drain(fw, false);
    bw.seek_end();
    auto b = drain(bw, true);
    std::reverse(b.begin(), b.end());
    EXPECT_EQ(f, b);
}

TEST_F(MergerTest, ReverseStoppedAndContinued) {
    const auto order = set_.buffer_order();
    EventMerger m;
    ASSERT_TRUE(set_.build_merger(order, {}, m));
    auto all = drain(m, false);
    m.seek_end();
    std::vector<Item> b;
    const Record* r = nullptr;
    MergeSource* s = nullptr;
    for (int i = 0; i < 4 && m.next_back(r, s); ++i) {
        uint32_t tag;
        std::memcpy(&tag, r->data, 4);
        b.push_back({r->ts, tag, s->global_cpu});
    }
    auto rest = drain(m, true);  // continues where the first reverse walk stopped
    b.insert(b.end(), rest.begin(), rest.end());
    std::reverse(b.begin(), b.end());
    EXPECT_EQ(all, b);
    // And a reset starts forward from the first event again.
    m.rewind();
    EXPECT_EQ(drain(m, false), all);
}

TEST_F(MergerTest, CpuListOrderDecidesTies) {
    // --cpu 1,0: CPU 1 is listed first, so it wins the tie at 20 (trace-cmd's filter_cpus loop).
    EventMerger m;
    const BufferRef top[] = {{0, 0}};
    const int cpus[] = {1, 0, 1};
    ASSERT_TRUE(set_.build_merger(top, cpus, m));
    std::vector<uint32_t> tags;
    for (const auto& i : drain(m, false)) tags.push_back(i.tag);
    const std::vector<uint32_t> want = {100, 200, 101, 102, 201, 202, 103};
    EXPECT_EQ(tags, want);
}

// next() takes runs from one CPU without looking at the others; the order must stay the one a
// full scan gives: by time, ties to the CPU added first. Many ties, runs of every length, two
// files, compressed and not, checked against the stable sort of every event by time.
TEST(MergerRuns, RunsGiveTheOrderOfAFullScan) {
    uint32_t seed = 12345;
    auto rnd = [&seed](uint32_t n) {
        seed = seed * 1103515245u + 12345u;
        return (seed >> 16) % n;
    };
    for (bool zstd : {false, true}) {
        struct Want {
            uint64_t ts;
            int source;
            uint32_t tag;
        };
        std::vector<Want> want;
        std::vector<std::string> files;
        int source = 0;
        for (int file = 0; file < 2; ++file) {
            std::vector<std::vector<std::vector<uint8_t>>> cpus;
            for (int cpu = 0; cpu < (file == 0 ? 3 : 2); ++cpu, ++source) {
                std::vector<std::vector<uint8_t>> pages;
                uint64_t ts = 100 + rnd(4);
                for (int page = 0; page < 3; ++page) {
                    PageBuilder b(ts);
                    for (int e = 0; e < 40; ++e) {
                        // Runs: mostly tiny steps (ties with the other CPUs), sometimes a jump.
                        ts += rnd(8) == 0 ? rnd(30) : rnd(2);
                        const uint32_t tag = static_cast<uint32_t>(source * 1000 + page * 100 + e);
                        b.event(ts, tag);
                        want.push_back({ts, source, tag});
                    }
                    pages.push_back(b.build());
                }
                cpus.push_back(std::move(pages));
            }
            files.push_back(test::write_trace(cpus, zstd));
        }
        std::stable_sort(want.begin(), want.end(), [](const Want& a, const Want& b) {
            return a.ts != b.ts ? a.ts < b.ts : a.source < b.source;
        });
        TraceSet set;
        for (const auto& f : files) ASSERT_TRUE(set.add_file(f, OpenOptions{}));
        EventMerger m;
        ASSERT_TRUE(set.build_merger(set.buffer_order(), {}, m));
        std::vector<uint32_t> want_tags, got;
        for (const auto& w : want) want_tags.push_back(w.tag);
        // Every 7th record through peek_next + a direct advance (what iterate_multi does): the
        // run must not survive a stream moved behind its back.
        const Record* r = nullptr;
        MergeSource* s = nullptr;
        for (size_t i = 0;; ++i) {
            if (i % 7 == 3) {
                s = m.peek_next(r);
                if (!s) break;
                s->stream.advance();
            } else if (!m.next(r, s)) {
                break;
            }
            uint32_t tag;
            std::memcpy(&tag, r->data, 4);
            got.push_back(tag);
        }
        EXPECT_EQ(got, want_tags) << (zstd ? "zstd" : "uncompressed");
        EXPECT_TRUE(m.status());
        // And after a rewind, next() alone.
        m.rewind();
        got.clear();
        while (m.next(r, s)) {
            uint32_t tag;
            std::memcpy(&tag, r->data, 4);
            got.push_back(tag);
        }
        EXPECT_EQ(got, want_tags) << (zstd ? "zstd" : "uncompressed");
    }
}

TEST(TraceSetTest, BufferOrderIsTopBuffersThenInstances) {
    TraceSet set;
    ASSERT_TRUE(set.add_file(test::data_path("traces/instances.dat"), OpenOptions{}));
    ASSERT_TRUE(set.add_file(test::data_path("traces/basic.dat"), OpenOptions{}));
    auto order = set.buffer_order();
    ASSERT_GE(order.size(), 3u);
    EXPECT_EQ(order[0].file, 0u);
    EXPECT_EQ(order[0].buffer, 0u);
    EXPECT_EQ(order[1].file, 1u);
    EXPECT_EQ(order[1].buffer, 0u);
    for (size_t i = 2; i < order.size(); ++i) {
        EXPECT_EQ(order[i].file, 0u);
        EXPECT_GT(order[i].buffer, 0u);
    }
}

}  // namespace
}  // namespace ringscope::engine
