// Parallel time slices of a merge: the trace is cut into K contiguous time ranges [T_i, T_i+1)
// (T_0 = 0, T_K = past everything), and each range is merged on its own (by another thread, with
// its own streams). The bounds are the first timestamps of every M-th page of every source,
// sorted: between two of them each source has at most M pages (when its timestamps do not go
// back), so a slice holds M pages on average and at most M per source, whatever the sources' rates.
//
// Why the slices' outputs, concatenated, are the serial merge's output. EventMerger takes, at each
// step, the head with the smallest (timestamp, source order). Let every source's records be cut
// into contiguous segments S_0, S_1, ... (segment i starts where segment i-1 stopped), each
// segment's first record at or past T_i and all its records before T_i+1. By induction on the
// records the serial merge hands out: once S_0..S_i-1 are out, every head is in S_i (timestamp
// < T_i+1) or is the first record of a later segment (timestamp >= T_i+1), so the serial merge
// hands out all of S_i first, in the order a merge of the S_i alone gives (same rule, same heads);
// no tie crosses a bound, the timestamps on either side differ. The induction needs nothing of
// what comes after the segments taken: any prefix of slices that passes the checks is exact, and
// the serial merge can go on from where the last of them stopped.
//
// SliceReader checks it while it walks: a source stops at its first record at or past the upper
// bound (which the next slice must start with: the caller compares starts() with the previous
// ends()), its streams must read without error, and (not needed by the argument above, a second
// guard) no record may be before the lower bound. A CPU that goes back in time across a bound
// breaks one of these. Records are not required to be ordered inside a slice: the merge orders
// them as the serial merge would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/engine/event_merger.hpp"

namespace ringscope::engine {

// Where a stream stands: the offset of its head record (Record::offset), or kStreamEnd.
inline constexpr uint64_t kStreamEnd = UINT64_MAX;

// A slice bound: a timestamp, or past every timestamp.
struct SliceBound {
    uint64_t ts = 0;
    bool end = false;

    bool above(uint64_t t) const noexcept { return end || t < ts; }
    bool operator<(const SliceBound& o) const noexcept { return !end && (o.end || ts < o.ts); }
};

// How the trace is cut, and the first timestamps of pages learned while cutting it.
struct SlicePlan {
    std::vector<SliceBound> bounds;                     // K + 1: slice i is [bounds[i], bounds[i + 1])
    std::vector<std::map<uint64_t, SliceBound>> known;  // per source: page -> its first timestamp

    size_t count() const noexcept { return bounds.size() - 1; }
    // Slices of about SLICE_BYTES of ring data, from the page probes of SOURCES (streams opened
    // for this: a probe that fails leaves its stream failed, and ends the cutting of that source
    // there), made by THREADS threads.
    static SlicePlan make(std::vector<MergeSource>& sources, uint64_t slice_bytes, int threads = 1);
};

// Positions STREAM at the record whose offset is POSITION (kStreamEnd: the end), as a walk from the
// start would reach it (the missed-events count of a page shows on its first record).
void seek_stream_to(CpuStream& stream, uint64_t position);

// Gives the streams of each source of MERGERS (the threads' clones of one merger) one set of
// shared chunks (io::SharedChunks): a slice publishes the chunks it starts in, which the thread of
// the slice before needs at its end. Enough are kept for THREADS threads' slices in flight.
void share_slice_chunks(std::vector<EventMerger>& mergers, int threads);

// One thread's reader of slices: its own merger over its own streams (the same sources, in the
// same order, as the serial merger).
class SliceReader {
  public:
    SliceReader(EventMerger merger, const SlicePlan& plan);

    // Computes slice I's bounds and moves every source to its first record at or after the lower
    // one. False when the slice cannot be exact (an error, bounds out of order): see exact().
    bool begin(size_t i);
    // The slice's next record in merge order; false at its end, or when it turns out not to be
    // exact (a record before the lower bound, a stream error). Inline: once per record.
    bool next(const Record*& rec, MergeSource*& src) {
        if (done_) return false;
        const bool got = merger_.next(rec, src);
        if (got && hi_.above(rec->ts) && !lo_.end && rec->ts >= lo_.ts) [[likely]]
            return true;
        end_at(got, rec, src);
        return false;
    }
    // No check failed so far (after next() returned false: the slice was exact as a whole).
    bool exact() const noexcept { return exact_; }

    // Per source, where this slice started and, once next() returned false, where it stopped.
    const std::vector<uint64_t>& starts() const noexcept { return starts_; }
    const std::vector<uint64_t>& ends() const noexcept { return ends_; }
    // The position of SRC (a source next() gave) in the merger's order.
    size_t index_of(const MergeSource* src) const noexcept { return merger_.index_of(src); }

  private:
    // The first timestamp at or after page INDEX of source K (end: none), remembered; false on an
    // error.
    bool first_ts(size_t k, uint64_t index, SliceBound& out);
    // Source K at its first record with a timestamp at or after AT (exactly so when its timestamps
    // do not go back); false on an error.
    bool seek_time(size_t k, const SliceBound& at);
    // Where next() stops: the merge's end (GOT false), the upper bound (REC, from SRC, the first
    // record past it), or a record before the lower bound (not exact).
    void end_at(bool got, const Record* rec, const MergeSource* src);
    void stop();

    EventMerger merger_;
    std::vector<SliceBound> bounds_;
    SliceBound lo_, hi_;
    bool exact_ = true;
    bool done_ = true;
    std::vector<uint64_t> starts_, ends_;
    std::vector<std::map<uint64_t, SliceBound>> known_;  // per source, from the plan and the probes
};

}  // namespace ringscope::engine
