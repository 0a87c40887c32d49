// EventMerger: time order across CPUs and files, ties to the source added first (libtracecmd's
// strict "<" over CPUs in order), reverse = forward reversed.
#include <gtest/gtest.h>

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
