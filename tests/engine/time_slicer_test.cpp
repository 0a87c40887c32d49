// Time slices (engine/time_slicer.hpp): slices read by their own streams, concatenated, are the
// serial merge (ties across CPUs at the slice bounds included, pages with lost events, zstd
// chunks); a CPU that goes back in time makes a slice fail its checks, and the slices before it
// are still the serial merge's first records, from where the serial merge goes on exactly.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>

#include "framework/engine/event_merger.hpp"
#include "framework/engine/time_slicer.hpp"
#include "framework/engine/trace_set.hpp"
#include "test_trace.hpp"

namespace ringscope::engine {
namespace {

using test::PageBuilder;

struct Item {
    uint64_t ts;
    uint32_t tag;
    int cpu;
    uint64_t offset;
    int64_t missed;
    bool operator==(const Item&) const = default;
};

Item item(const Record& r) {
    uint32_t tag;
    std::memcpy(&tag, r.data, 4);
    return {r.ts, tag, r.cpu, r.offset, r.missed};
}

EventMerger merger_of(TraceSet& set) {
    EventMerger m;
    const auto order = set.buffer_order();
    EXPECT_TRUE(set.build_merger(order, {}, m));
    return m;
}

std::vector<Item> drain(EventMerger& m) {
    std::vector<Item> out;
    const Record* r = nullptr;
    MergeSource* s = nullptr;
    while (m.next(r, s)) out.push_back(item(*r));
    return out;
}

EventMerger clone_of(EventMerger& m) {
    EventMerger c;
    for (MergeSource& s : m.sources())
        c.add({s.file, s.file_index, s.buffer, s.global_cpu, s.stream.clone()});
    return c;
}

// Three CPUs, 12 pages each, every timestamp shared by all three (ties at every page start, so at
// every slice bound), lost events before some pages. CPU 2 starts later and writes less.
std::vector<std::vector<std::vector<uint8_t>>> tied_pages() {
    std::vector<std::vector<std::vector<uint8_t>>> cpus(3);
    for (int cpu = 0; cpu < 3; ++cpu) {
        for (uint64_t p = 0; p < 12; ++p) {
            const uint64_t base = 1000 + p * 100 + (cpu == 2 ? 50 : 0);
            PageBuilder b(base);
            if (p % 4 == 3) b.missed(cpu + 1);
            const int n = cpu == 2 ? 3 : 8;
            for (int e = 0; e < n; ++e)
                b.event(base + static_cast<uint64_t>(e / 2) * 10,
                        static_cast<uint32_t>(cpu * 1000 + p * 10 + e));
            cpus[static_cast<size_t>(cpu)].push_back(b.build());
        }
    }
    return cpus;
}

struct SliceRun {
    std::vector<Item> items;  // the exact slices' records, in slice order
    std::vector<uint64_t> ends;
    size_t exact_slices = 0;
    size_t count = 0;
};

// Reads every slice of PLAN with READERS readers taking slices in turn (as report's threads do),
// in order, up to the first that fails a check.
SliceRun run_plan(EventMerger& serial, const SlicePlan& plan, std::vector<EventMerger> own) {
    SliceRun run;
    const size_t readers = own.size();
    std::vector<std::unique_ptr<SliceReader>> rs;
    for (auto& m : own) rs.push_back(std::make_unique<SliceReader>(std::move(m), plan));
    run.count = plan.count();
    for (MergeSource& s : serial.sources()) {
        const Record* r = s.stream.peek();
        run.ends.push_back(r ? r->offset : kStreamEnd);
    }
    for (size_t i = 0; i < plan.count(); ++i) {
        SliceReader& r = *rs[i % readers];
        std::vector<Item> got;
        bool ok = r.begin(i);
        const Record* rec = nullptr;
        MergeSource* src = nullptr;
        while (ok && r.next(rec, src)) got.push_back(item(*rec));
        if (!ok || !r.exact() || r.starts() != run.ends) break;
        run.items.insert(run.items.end(), got.begin(), got.end());
        run.ends = r.ends();
        ++run.exact_slices;
    }
    return run;
}

SliceRun run_slices(EventMerger& serial, uint64_t slice_bytes, size_t readers) {
    std::vector<EventMerger> own;
    for (size_t k = 0; k < readers; ++k) own.push_back(clone_of(serial));
    const SlicePlan plan = SlicePlan::make(own[0].sources(), slice_bytes);
    return run_plan(serial, plan, std::move(own));
}

class TimeSlicerTest : public ::testing::TestWithParam<bool> {};

TEST_P(TimeSlicerTest, SlicesConcatenateToTheSerialMergeWithTiesAtEveryBound) {
    TraceSet set;
    ASSERT_TRUE(set.add_file(test::write_trace(tied_pages(), GetParam()), OpenOptions{}));
    EventMerger serial = merger_of(set);
    const std::vector<Item> want = drain(serial);
    ASSERT_EQ(want.size(), 12u * (8 + 8 + 3));
    for (uint64_t bytes : {uint64_t{1}, uint64_t{4096}, uint64_t{3 * 4096}, uint64_t{1} << 20}) {
        for (size_t readers : {1u, 2u, 3u}) {
            EventMerger fresh = merger_of(set);
            const SliceRun run = run_slices(fresh, bytes, readers);
            EXPECT_EQ(run.exact_slices, run.count) << bytes << " " << readers;
            EXPECT_TRUE(run.items == want) << bytes << " " << readers;
            EXPECT_EQ(run.ends, std::vector<uint64_t>(3, kStreamEnd));
            // One page per cut: as many slices as distinct first timestamps of pages (plus the first).
            if (bytes == 1) {
                EXPECT_EQ(run.count, 1u + 11u + 11u);
            }
        }
    }
}

// CPU 1's page 6 goes back 250 ns: the serial merge interleaves it with CPU 0's earlier pages,
// which no slicing by time can give; the slices must notice.
TEST_P(TimeSlicerTest, ACpuGoingBackFailsASliceAndTheSerialMergeGoesOnFromTheLastExactOne) {
    auto cpus = tied_pages();
    for (auto& p : cpus) p.resize(10);
    {
        PageBuilder b(1000 + 6 * 100 - 250);
        for (int e = 0; e < 8; ++e) b.event(1000 + 6 * 100 - 250 + static_cast<uint64_t>(e) * 5, 9000u + e);
        cpus[1][6] = b.build();
    }
    TraceSet set;
    ASSERT_TRUE(set.add_file(test::write_trace(cpus, GetParam()), OpenOptions{}));
    EventMerger serial = merger_of(set);
    const std::vector<Item> want = drain(serial);
    for (size_t readers : {1u, 2u}) {
        EventMerger rest = merger_of(set);
        const SliceRun run = run_slices(rest, 1, readers);
        ASSERT_LT(run.exact_slices, run.count) << readers;
        EXPECT_GT(run.exact_slices, 0u) << readers;
        ASSERT_LE(run.items.size(), want.size());
        EXPECT_TRUE(std::equal(run.items.begin(), run.items.end(), want.begin())) << readers;
        // The serial merge from where the last exact slice stopped gives the rest.
        for (size_t k = 0; k < run.ends.size(); ++k) seek_stream_to(rest.sources()[k].stream, run.ends[k]);
        rest.sources();
        std::vector<Item> all = run.items;
        for (const Item& it : drain(rest)) all.push_back(it);
        EXPECT_TRUE(all == want) << readers;
    }
}

// CPU 1 goes back from 1530 to 1400 at a page start, in a slice [1500, 1600) whose start and end
// the seeks find consistently (no page first timestamps known in advance): only the check of
// each record against the lower bound sees it, and the slice must not count as exact.
TEST_P(TimeSlicerTest, ARecordBelowItsSliceFailsItEvenWhenTheSeeksAgree) {
    std::vector<std::vector<std::vector<uint8_t>>> cpus(2);
    cpus[0].push_back(PageBuilder(1000).event(1000, 1).event(1450, 2).build());
    cpus[1].push_back(PageBuilder(1000).event(1000, 10).event(1010, 11).build());
    cpus[1].push_back(PageBuilder(1500).event(1500, 12).event(1530, 13).build());
    cpus[1].push_back(PageBuilder(1400).event(1400, 14).event(1410, 15).build());
    cpus[1].push_back(PageBuilder(1700).event(1700, 16).event(1710, 17).build());
    TraceSet set;
    ASSERT_TRUE(set.add_file(test::write_trace(cpus, GetParam()), OpenOptions{}));
    EventMerger serial = merger_of(set);
    const std::vector<Item> want = drain(serial);
    SlicePlan plan;
    plan.bounds = {{0, false}, {1500, false}, {1600, false}, {0, true}};
    EventMerger fresh = merger_of(set);
    std::vector<EventMerger> own;
    own.push_back(clone_of(fresh));
    const SliceRun run = run_plan(fresh, plan, std::move(own));
    EXPECT_EQ(run.exact_slices, 1u);
    ASSERT_EQ(run.items.size(), 4u);  // 1000, 1000, 1010, 1450
    EXPECT_TRUE(std::equal(run.items.begin(), run.items.end(), want.begin()));
}

TEST_P(TimeSlicerTest, SeekStreamToGivesTheRecordAndThePageLostEvents) {
    TraceSet set;
    ASSERT_TRUE(set.add_file(test::write_trace(tied_pages(), GetParam()), OpenOptions{}));
    EventMerger m = merger_of(set);
    CpuStream& s = m.sources()[1].stream;
    std::vector<Item> all;
    while (const Record* r = s.peek()) {
        all.push_back(item(*r));
        s.advance();
    }
    ASSERT_EQ(all.size(), 96u);
    for (size_t i : {size_t{0}, size_t{24}, size_t{25}, size_t{31}, size_t{95}}) {
        CpuStream c = s.clone();
        seek_stream_to(c, all[i].offset);
        const Record* r = c.peek();
        ASSERT_NE(r, nullptr);
        EXPECT_TRUE(item(*r) == all[i]) << i;
    }
    EXPECT_EQ(all[24].missed, 2);  // page 3's first record
    CpuStream end = s.clone();
    seek_stream_to(end, kStreamEnd);
    EXPECT_EQ(end.peek(), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Compression, TimeSlicerTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "zstd" : "none"; });

}  // namespace
}  // namespace ringscope::engine
