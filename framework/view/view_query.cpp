// The level-of-detail answers: from the buckets when a pixel is at least a bucket wide, else from
// the range decoded again (positioned by the buckets' stream offsets).
#include <algorithm>

#include <ringscope/filter.hpp>

#include "framework/engine/time_slicer.hpp"
#include "framework/view/view_index.hpp"
#include "framework/view/view_index_impl.hpp"

namespace ringscope::view {
namespace {

uint64_t pixel_ns(uint64_t from, uint64_t to, uint32_t width) {
    return std::max<uint64_t>(1, (to - from + width) / width);
}

uint32_t pixel_of(uint64_t t, uint64_t from, uint64_t px, uint32_t width) {
    const uint64_t p = t <= from ? 0 : (t - from) / px;
    return static_cast<uint32_t>(std::min<uint64_t>(p, width - 1));
}

// Pieces that start in one pixel become one span: its first start, as long as their sum (so the
// covered time stays what it was), the value that covers most, n = the pieces' count.
struct PixelGroup {
    uint32_t pixel = 0;
    uint32_t last = 0;  // > pixel: pixels pixel..last, each wholly in by_value's one value (tasks)
    uint64_t first = UINT64_MAX, total = 0, n = 0;
    OpenBucket by_value;

    void add(uint64_t start, uint64_t len, int32_t value, uint64_t count) {
        first = std::min(first, start);
        total += len;
        n += count;
        by_value.add(value, len);
    }
};

// The groups of the pixels that have something, in pixel order (pieces come in time order, so
// only the last one is looked at: a query costs what it holds, not its width times its lanes).
class PixelGroups {
  public:
    PixelGroup& operator[](uint32_t p) {
        for (size_t i = groups_.size(); i-- > 0 && groups_[i].pixel >= p;)
            if (groups_[i].pixel == p) return groups_[i];
        PixelGroup g;
        g.pixel = g.last = p;
        auto at = std::upper_bound(groups_.begin(), groups_.end(), p,
                                   [](uint32_t x, const PixelGroup& y) { return x < y.pixel; });
        return *groups_.insert(at, std::move(g));
    }
    // Pixels P..LAST (after every group so far) wholly in VALUE from START on: one group.
    void add_run(uint32_t p, uint32_t last, uint64_t start, uint64_t len, int32_t value) {
        PixelGroup g;
        g.pixel = p;
        g.last = last;
        g.add(start, len, value, last - p + 1);
        groups_.push_back(std::move(g));
    }
    std::vector<PixelGroup>::iterator begin() { return groups_.begin(); }
    std::vector<PixelGroup>::iterator end() { return groups_.end(); }

  private:
    std::vector<PixelGroup> groups_;
};

// Spans from the groups of each pixel, then neighbours that touch with the same value joined.
// A pixel's value: PREFER when any of the pixel is in it (0: none), else the one that covers most.
int32_t value_of(const PixelGroup& g, int32_t prefer) {
    if (prefer != 0)
        for (const auto& [v, ns] : g.by_value.ran)
            if (v == prefer && ns > 0) return prefer;
    return g.by_value.dominant();
}

std::vector<Span> spans_of(PixelGroups& groups, uint64_t to, int32_t prefer = 0) {
    std::vector<Span> out;
    for (auto& g : groups) {
        if (g.total == 0) continue;
        Span s{g.first, std::min(to, g.first + g.total), value_of(g, prefer), std::max<uint64_t>(1, g.n)};
        if (!out.empty() && out.back().value == s.value && out.back().end == s.start) {
            out.back().end = s.end;
            out.back().n += s.n;
        } else {
            out.push_back(s);
        }
    }
    return out;
}

// Exact pieces (in time order, clipped) grouped per pixel; a pixel with one piece keeps it as is.
std::vector<Span> merge_exact(const std::vector<Span>& pieces, uint64_t from, uint64_t to, uint32_t width,
                              int32_t prefer = 0) {
    const uint64_t px = pixel_ns(from, to, width);
    PixelGroups groups;
    for (const Span& s : pieces)
        groups[pixel_of(s.start, from, px, width)].add(s.start, s.end - s.start, s.value, 1);
    return spans_of(groups, to, prefer);
}

void clip_add(std::vector<Span>& out, int32_t value, uint64_t a, uint64_t b, uint64_t from, uint64_t to) {
    a = std::max(a, from);
    b = std::min(b, to);
    if (b > a) out.push_back({a, b, value, 1});
}

// One level of the task summaries: where its buckets start and how wide they are.
struct Level {
    uint64_t start, ns;
    uint32_t count;

    uint32_t bucket(uint64_t ts) const {
        const uint64_t b = ts <= start ? 0 : (ts - start) / ns;
        return static_cast<uint32_t>(std::min<uint64_t>(b, count - 1));
    }
};

// A task's states at WIDTH pixels from the buckets of one level: the buckets with changes one by
// one, the runs between them (one state) pixel by pixel; a pixel's span covers the pixel (states
// tile the time line), clipped to the range.
std::vector<Span> task_lod(const std::vector<TaskBucket>& entries, const Level& lv, uint64_t from,
                           uint64_t to, uint32_t width, int32_t prefer) {
    const uint64_t px = pixel_ns(from, to, width);
    const uint32_t tb0 = lv.bucket(from), tb1 = lv.bucket(to);
    auto it = std::lower_bound(entries.begin(), entries.end(), tb0,
                               [](const TaskBucket& e, uint32_t b) { return e.bucket < b; });
    TaskState cur = it != entries.begin() ? std::prev(it)->end : TaskState::unknown;
    PixelGroups groups;
    uint32_t k = tb0;
    while (k <= tb1) {
        const uint64_t bs = lv.start + k * lv.ns;
        if (it != entries.end() && it->bucket == k) {
            PixelGroup& g = groups[pixel_of(bs, from, px, width)];
            for (int s = 1; s < 5; ++s)
                if (it->ns[s]) g.add(std::max(bs, from), it->ns[s], s, 0);
            g.n += it->changes;
            cur = it->end;
            ++it;
            ++k;
            continue;
        }
        const uint32_t e = it != entries.end() ? std::min(it->bucket, tb1 + 1) : tb1 + 1;
        if (cur != TaskState::unknown) {
            // [bs, run_end) split where the pixels' buckets end (a bucket goes by its start).
            const uint64_t run_end = lv.start + uint64_t{e} * lv.ns;
            // Where pixel P's piece of the run ends: at the first bucket end at or after the pixel's.
            auto cut_of = [&](uint32_t p) {
                const uint64_t pe = p + 1 == width ? run_end : from + (p + 1) * px;
                return std::min(run_end, lv.start + ((pe - lv.start + lv.ns - 1) / lv.ns) * lv.ns);
            };
            const uint32_t last = pixel_of(run_end - 1, from, px, width);
            for (uint64_t t = bs; t < run_end;) {
                const uint32_t p = pixel_of(t, from, px, width);
                if (p + 2 < last && p + 1 == pixel_of(cut_of(p), from, px, width)) {
                    // The pixels between the run's first and last hold nothing else: one group
                    // (a bucket is at most a pixel wide, so each of them has a piece).
                    const uint64_t a = cut_of(p), b = cut_of(last - 1);
                    groups[p].add(std::max(t, from), a - t, static_cast<int32_t>(cur), 0);
                    groups.add_run(p + 1, last - 1, std::max(a, from), b - a, static_cast<int32_t>(cur));
                    t = b;
                    continue;
                }
                const uint64_t cut = cut_of(p);
                groups[p].add(std::max(t, from), cut - t, static_cast<int32_t>(cur), 0);
                t = std::max(cut, t + 1);
            }
        }
        k = e;
    }
    std::vector<Span> spans;
    for (PixelGroup& g : groups) {
        const uint32_t p = g.pixel;
        if (g.total == 0) continue;
        // After a pixel with a state the span starts with its pixel; the first one when it is known.
        const bool follows = !spans.empty() && spans.back().end == from + p * px;
        const uint64_t a = follows ? from + p * px : std::max(from, std::max(g.first, from + p * px));
        const uint64_t b = g.last + 1 == width ? to : std::min(to, from + (g.last + 1) * px);
        if (b <= a) continue;
        Span s{a, b, value_of(g, prefer), std::max<uint64_t>(1, g.n)};
        if (!spans.empty() && spans.back().value == s.value && spans.back().end == s.start) {
            spans.back().end = s.end;
            spans.back().n += s.n;
        } else {
            spans.push_back(s);
        }
    }
    return spans;
}

}  // namespace

bool ViewIndex::cpu_from_summary(uint64_t from, uint64_t to, uint32_t width) const {
    return pixel_ns(from, to, width) >= impl_->cpu_ns;
}

Status ViewIndex::replay(uint64_t from, uint64_t to, SchedTracker& tracker, bool with_tasks) {
    Impl& im = *impl_;
    const uint32_t b0 = im.cpu_bucket(start_, from) / im.ratio * im.ratio;  // a task bucket's start too
    const uint64_t t0 = start_ + b0 * im.cpu_ns;
    engine::EventMerger merger;
    const auto buffers = view_buffers(set_);
    if (Status st = set_.build_merger(buffers, {}, merger); !st) return st;
    for (size_t k = 0; k < merger.sources().size() && k < lanes_.size(); ++k) {
        engine::seek_stream_to(merger.sources()[k].stream, im.cpu[k][b0].offset);
        tracker.set_running(k, im.cpu[k][b0].running_at_start, t0);
    }
    if (with_tasks) {
        const uint32_t tb0 = b0 / im.ratio;
        for (const auto& [pid, t] : tasks_) {
            auto it = std::lower_bound(t.buckets.begin(), t.buckets.end(), tb0,
                                       [](const TaskBucket& e, uint32_t b) { return e.bucket < b; });
            TaskState s = TaskState::unknown;
            if (it != t.buckets.end() && it->bucket == tb0)
                s = it->start;
            else if (it != t.buckets.begin())
                s = std::prev(it)->end;
            if (s != TaskState::unknown) tracker.set_state(pid, s, t0);
        }
    }
    const engine::Record* r;
    engine::MergeSource* src;
    while (merger.next(r, src)) {
        if (r->ts > to) break;
        const EventType* type = src->file->type_of(r->data, r->size);
        if (!type) continue;
        Event ev(type, src->file, {r->data, r->size}, r->ts, r->cpu, r->missed, r->trailing);
        tracker.feed(merger.index_of(src), src->file_index, ev);
    }
    if (Status st = merger.status(); !st) return st;
    tracker.finish(to);
    return {};
}

Expected<std::vector<std::vector<Span>>> ViewIndex::cpu_slices(uint64_t from, uint64_t to, uint32_t width) {
    Impl& im = *impl_;
    std::vector<std::vector<Span>> lanes(lanes_.size());
    if (cpu_from_summary(from, to, width)) {
        const uint64_t px = pixel_ns(from, to, width);
        const uint32_t b0 = im.cpu_bucket(start_, from), b1 = im.cpu_bucket(start_, to);
        for (size_t lane = 0; lane < lanes_.size(); ++lane) {
            PixelGroups groups;
            for (uint32_t k = b0; k <= b1; ++k) {
                const CpuBucket& cb = im.cpu[lane][k];
                if (cb.busy == 0) continue;
                groups[pixel_of(start_ + k * im.cpu_ns, from, px, width)].add(
                    std::max(cb.first_busy, from), cb.busy, cb.dominant, cb.starts);
            }
            lanes[lane] = spans_of(groups, to);
        }
        return lanes;
    }
    std::vector<std::vector<Span>> pieces(lanes_.size());
    SchedTracker tracker(im.sched, lanes_.size());
    tracker.on_slice = [&](size_t lane, int32_t pid, uint64_t a, uint64_t b) {
        clip_add(pieces[lane], pid, a, b, from, to);
    };
    if (Status st = replay(from, to, tracker, false); !st) return st.error();
    for (size_t lane = 0; lane < lanes_.size(); ++lane)
        lanes[lane] = merge_exact(pieces[lane], from, to, width);
    return lanes;
}

std::vector<std::pair<uint64_t, uint64_t>> ViewIndex::cpu_ticks(size_t lane, uint64_t from, uint64_t to,
                                                                uint32_t width) const {
    const Impl& im = *impl_;
    std::vector<std::pair<uint64_t, uint64_t>> out;
    const uint64_t px = std::max(pixel_ns(from, to, width), im.cpu_ns);
    const uint32_t b0 = im.cpu_bucket(start_, from), b1 = im.cpu_bucket(start_, to);
    for (uint32_t k = b0; k <= b1; ++k) {
        const CpuBucket& cb = im.cpu[lane][k];
        if (cb.events == 0) continue;
        const uint64_t bs = std::max(from, start_ + k * im.cpu_ns);
        const uint64_t p = from + (bs - from) / px * px;
        if (!out.empty() && out.back().first == p)
            out.back().second += cb.events;
        else
            out.emplace_back(p, cb.events);
    }
    return out;
}

Expected<std::map<int, std::vector<Span>>> ViewIndex::task_states(const std::vector<int>& pids, uint64_t from,
                                                                  uint64_t to, uint32_t width,
                                                                  TaskState prefer) {
    Impl& im = *impl_;
    const auto pref = static_cast<int32_t>(prefer);
    std::map<int, std::vector<Span>> out;
    const uint64_t px = pixel_ns(from, to, width);
    if (px >= im.task_ns) {
        // The coarsest level whose buckets a pixel holds: a query costs the buckets it reads.
        size_t li = 0;  // 0: the finest; i: levels[i - 1]
        uint64_t ns = im.task_ns, count = im.task_buckets;
        while (count > 1 && px >= ns * kLevelFactor) {
            ++li;
            ns *= kLevelFactor;
            count = (count + kLevelFactor - 1) / kLevelFactor;
        }
        const Level level{start_, ns, static_cast<uint32_t>(count)};
        for (int pid : pids) {
            auto t = tasks_.find(pid);
            if (t == tasks_.end()) continue;
            const TaskSummary& ts = t->second;
            out[pid] = task_lod(li ? ts.levels[li - 1] : ts.buckets, level, from, to, width, pref);
        }
        return out;
    }
    std::map<int, std::vector<Span>> pieces;
    for (int pid : pids) pieces[pid];
    SchedTracker tracker(im.sched, lanes_.size());
    tracker.on_state = [&](int32_t pid, TaskState s, uint64_t a, uint64_t b, TaskState) {
        if (s == TaskState::unknown) return;
        auto it = pieces.find(pid);
        if (it != pieces.end()) clip_add(it->second, static_cast<int32_t>(s), a, b, from, to);
    };
    if (Status st = replay(from, to, tracker, true); !st) return st.error();
    for (auto& [pid, p] : pieces) {
        std::sort(p.begin(), p.end(), [](const Span& x, const Span& y) { return x.start < y.start; });
        if (tasks_.count(pid)) out[pid] = merge_exact(p, from, to, width, pref);
    }
    return out;
}

Expected<std::map<int32_t, TaskStats>> ViewIndex::task_stats(uint64_t from, uint64_t to) {
    std::map<int32_t, TaskStats> out;
    SchedTracker tracker(impl_->sched, lanes_.size());
    tracker.on_state = [&](int32_t pid, TaskState s, uint64_t a, uint64_t b, TaskState) {
        a = std::max(a, from);
        b = std::min(b, to);
        if (b <= a) return;
        if (s == TaskState::running) out[pid].run += b - a;
        if (s == TaskState::runnable) out[pid].wait += b - a;
    };
    tracker.on_wakeup_latency = [&](int32_t pid, uint64_t a, uint64_t b) {
        if (b < from || b > to) return;
        TaskStats& t = out[pid];
        t.wakeup_max = std::max(t.wakeup_max, b - a);
        t.wakeup_sum += b - a;
        t.wakeups++;
    };
    if (Status st = replay(from, to, tracker, true); !st) return st.error();
    return out;
}

Expected<FilterMatches> ViewIndex::count_matching(FilterSet& filter) {
    FilterMatches m;
    engine::EventMerger merger;
    std::vector<engine::BufferRef> first_file;  // its top buffer and instances, as report merges them
    for (const engine::BufferRef& b : view_buffers(set_))
        if (b.file == 0) first_file.push_back(b);
    if (Status st = set_.build_merger(first_file, {}, merger); !st) return st.error();
    const engine::Record* r;
    engine::MergeSource* src;
    while (merger.next(r, src)) {
        const EventType* type = src->file->type_of(r->data, r->size);
        if (!type) continue;
        Event ev(type, src->file, {r->data, r->size}, r->ts, r->cpu, r->missed, r->trailing);
        if (!filter.accept(ev)) continue;
        if (m.count++ == 0) m.first = r->ts;
    }
    if (Status st = merger.status(); !st) return st.error();
    return m;
}

uint64_t ViewIndex::task_first_seen(int pid) const {
    auto it = tasks_.find(pid);
    if (it == tasks_.end() || it->second.buckets.empty()) return start_;
    return start_ + it->second.buckets.front().bucket * impl_->task_ns;
}

}  // namespace ringscope::view
