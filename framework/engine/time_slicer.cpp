#include "framework/engine/time_slicer.hpp"

#include <algorithm>
#include <map>

#include "framework/engine/parallel_for.hpp"

namespace ringscope::engine {

SlicePlan SlicePlan::make(std::vector<MergeSource>& sources, uint64_t slice_bytes, int threads) {
    SlicePlan plan;
    plan.known.resize(sources.size());
    std::vector<std::vector<uint64_t>> cuts(sources.size());
    // Each source's probes use its own stream: sources are probed in THREADS threads at a time
    // (each probe of a compressed stream decompresses a chunk).
    auto probe = [&](size_t k) {
        CpuStream& s = sources[k].stream;
        const uint64_t every =
            std::max<uint64_t>(1, slice_bytes / std::max<uint32_t>(1, s.pages().page_size()));
        for (uint64_t page = every; page < s.page_count(); page += every) {
            s.seek_page(page);
            const Record* r = s.peek();
            if (!s.status() || !r) break;
            plan.known[k][page] = {r->ts, false};
            if (r->ts > 0) cuts[k].push_back(r->ts);
        }
    };
    parallel_for(sources.size(), threads, probe);
    std::vector<uint64_t> all;
    for (const auto& c : cuts) all.insert(all.end(), c.begin(), c.end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    plan.bounds.push_back({0, false});
    for (uint64_t t : all) plan.bounds.push_back({t, false});
    plan.bounds.push_back({0, true});
    return plan;
}

void share_slice_chunks(std::vector<EventMerger>& mergers, int threads) {
    if (mergers.empty()) return;
    // Each slice begun publishes one chunk per source; the slice before it ends within the slices
    // in flight (threads + 1), with room to spare.
    const size_t keep = 2 * static_cast<size_t>(std::max(threads, 1)) + 2;
    for (size_t k = 0; k < mergers.front().sources().size(); ++k) {
        if (!mergers.front().sources()[k].stream.pages().compressed()) continue;
        auto shared = std::make_shared<io::SharedChunks>(keep);
        for (EventMerger& m : mergers) m.sources()[k].stream.share_chunks(shared);
    }
}

void seek_stream_to(CpuStream& stream, uint64_t position) {
    if (position == kStreamEnd) {
        stream.seek_page(stream.page_count());
        return;
    }
    const io::CpuPageReader& pages = stream.pages();
    stream.seek_page((position - pages.page_offset(0)) / pages.page_size());
    // Offsets grow along a stream: the records before POSITION on its page are passed over.
    while (const Record* r = stream.peek()) {
        if (r->offset >= position) break;
        stream.advance();
    }
}

SliceReader::SliceReader(EventMerger merger, const SlicePlan& plan)
    : merger_(std::move(merger)), bounds_(plan.bounds), known_(plan.known) {
    known_.resize(merger_.sources().size());
    starts_.assign(merger_.sources().size(), kStreamEnd);
    ends_.assign(merger_.sources().size(), kStreamEnd);
}

bool SliceReader::first_ts(size_t k, uint64_t index, SliceBound& out) {
    CpuStream& stream = merger_.sources()[k].stream;
    stream.seek_page(index);
    const Record* r = stream.peek();
    out = r ? SliceBound{r->ts, false} : SliceBound{0, true};
    if (!stream.status()) return false;
    known_[k][index] = out;
    return true;
}

bool SliceReader::seek_time(size_t k, const SliceBound& at) {
    CpuStream& stream = merger_.sources()[k].stream;
    const int64_t n = static_cast<int64_t>(stream.page_count());
    if (at.end || (at.ts == 0 && n > 0)) {
        stream.seek_page(at.end ? static_cast<uint64_t>(n) : 0);
        return true;
    }
    // The last page whose first timestamp is before AT (lo; -1: none) and the first one known not
    // to be (hi), narrowed first by the plan's probes and what earlier searches of this reader
    // learned. Each probe of a compressed stream decompresses a chunk unless it is the one loaded,
    // so the probes are guessed by interpolating the timestamps (or extrapolating the local rate
    // while no upper page is known), with a bisection after any guess that did not halve the range.
    std::map<uint64_t, SliceBound>& known = known_[k];
    int64_t lo = -1, hi = n, prev = -1;
    uint64_t lo_ts = 0, hi_ts = 0, prev_ts = 0;
    bool hi_known = false;
    for (const auto& [page, b] : known) {
        const auto p = static_cast<int64_t>(page);
        if (p >= n) continue;
        if (!b.end && b.ts < at.ts && p > lo) {
            prev = lo;
            prev_ts = lo_ts;
            lo = p;
            lo_ts = b.ts;
        } else if ((b.end || b.ts >= at.ts) && p < hi) {
            hi = p;
            hi_ts = b.ts;
            hi_known = !b.end;
        }
    }
    bool bisect = false;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        bool guess = false;
        if (!bisect && lo >= 0 && hi_known && hi_ts > lo_ts) {
            const double f = static_cast<double>(at.ts - lo_ts) / static_cast<double>(hi_ts - lo_ts);
            mid = lo + 1 + static_cast<int64_t>(f * static_cast<double>(hi - lo - 1));
            guess = true;
        } else if (!bisect && lo >= 0 && !hi_known && prev >= 0 && lo_ts > prev_ts) {
            const double pages_per_ns = static_cast<double>(lo - prev) / static_cast<double>(lo_ts - prev_ts);
            mid = lo + 1 + static_cast<int64_t>(static_cast<double>(at.ts - lo_ts) * pages_per_ns);
            guess = true;
        }
        mid = std::clamp<int64_t>(mid, lo + 1, hi - 1);
        SliceBound b;
        if (!first_ts(k, static_cast<uint64_t>(mid), b)) return false;
        const int64_t before = hi - lo;
        if (!b.end && b.ts < at.ts) {
            prev = lo;
            prev_ts = lo_ts;
            lo = mid;
            lo_ts = b.ts;
        } else {
            hi = mid;
            hi_ts = b.ts;
            hi_known = !b.end;
        }
        bisect = guess && (hi - lo) * 2 > before;
    }
    // Later searches look further on (the slices a reader takes go forwards): what lies before the
    // two last pages known to be before AT is forgotten, so the table stays small.
    known.erase(known.begin(), known.lower_bound(static_cast<uint64_t>(std::max<int64_t>(prev, 0))));
    stream.seek_page(lo < 0 ? 0 : static_cast<uint64_t>(lo));
    while (const Record* r = stream.peek()) {
        if (r->ts >= at.ts) break;
        stream.advance();
    }
    return static_cast<bool>(stream.status());
}

bool SliceReader::begin(size_t i) {
    exact_ = true;
    done_ = false;
    auto& sources = merger_.sources();
    lo_ = bounds_[i];
    hi_ = bounds_[i + 1];
    if (hi_ < lo_) {
        stop();
        exact_ = false;
        return false;
    }
    for (size_t k = 0; k < sources.size(); ++k) {
        CpuStream& s = sources[k].stream;
        if (!seek_time(k, lo_)) {
            stop();
            exact_ = false;
            return false;
        }
        const Record* r = s.peek();
        starts_[k] = r ? r->offset : kStreamEnd;
        s.pages().publish_current_chunk();
    }
    merger_.sources();  // the streams moved: the merger looks at every head again
    return true;
}

void SliceReader::stop() {
    done_ = true;
    if (!merger_.status()) exact_ = false;
}

void SliceReader::end_at(bool got, const Record* rec, const MergeSource* src) {
    if (!got) {
        std::fill(ends_.begin(), ends_.end(), kStreamEnd);
        stop();
        return;
    }
    if (!hi_.above(rec->ts)) {
        // Every head is at or past the upper bound now (the merge took the oldest): there the
        // next slice starts. The others' heads were peeked already; this one was just taken.
        auto& sources = merger_.sources();
        for (size_t k = 0; k < sources.size(); ++k) {
            const Record* r = &sources[k] == src ? rec : sources[k].stream.peek();
            ends_[k] = r ? r->offset : kStreamEnd;
        }
        stop();
        return;
    }
    exact_ = false;  // a record before the lower bound
    done_ = true;
}

}  // namespace ringscope::engine
