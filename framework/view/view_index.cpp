#include "framework/view/view_index.hpp"

#include <algorithm>
#include <unordered_map>

#include "framework/engine/time_slicer.hpp"
#include "framework/view/sched_tracker.hpp"
#include "framework/view/view_index_impl.hpp"
#include "framework/view/view_marks.hpp"

namespace ringscope::view {

char state_letter(TaskState s) noexcept {
    switch (s) {
        case TaskState::running:
            return 'R';
        case TaskState::runnable:
            return 'W';
        case TaskState::sleeping:
            return 'S';
        case TaskState::blocked:
            return 'D';
        default:
            return '?';
    }
}

namespace {

constexpr size_t kMaxDropped = 100000;  // dropped-event marks kept (each is one page's loss)

}  // namespace

ViewIndex::ViewIndex() : impl_(std::make_unique<Impl>()) {}
ViewIndex::~ViewIndex() = default;

std::string ViewIndex::lane_name(size_t lane) const {
    const CpuLane& l = lanes_[lane];
    return std::to_string(l.file) + (l.buffer ? "/" + l.instance : std::string()) + ":" +
           std::to_string(l.cpu);
}

namespace {

// The last timestamp of every stream of MERGER (read backwards from each end, then rewound).
uint64_t last_timestamp(engine::EventMerger& merger) {
    uint64_t last = 0;
    for (auto& s : merger.sources()) {
        s.stream.seek_end();
        if (const engine::Record* r = s.stream.peek_back()) last = std::max(last, r->ts);
        s.stream.rewind();
    }
    return last;
}

// Buckets of the finest level per bucket of levels[I].
uint64_t level_ns(size_t i) {
    uint64_t n = 1;
    for (size_t k = 0; k < i; ++k) n *= kLevelFactor;
    return n;
}

// The next coarser level of a task's entries FINE (COUNT buckets of NS each): kLevelFactor buckets
// in one, the buckets between two entries (one state each) added in.
std::vector<TaskBucket> coarsen(const std::vector<TaskBucket>& fine, uint32_t count, uint64_t ns) {
    std::vector<TaskBucket> out;
    uint32_t next_fine = 0;  // the first fine bucket of the current coarse one not yet counted
    auto fill = [&](TaskBucket& c, uint32_t upto, TaskState s) {
        if (upto > next_fine) c.ns[static_cast<size_t>(s)] += uint64_t{upto - next_fine} * ns;
    };
    auto close = [&](TaskBucket& c) { fill(c, std::min((c.bucket + 1) * kLevelFactor, count), c.end); };
    for (const TaskBucket& e : fine) {
        const uint32_t cb = e.bucket / kLevelFactor;
        if (out.empty() || out.back().bucket != cb) {
            if (!out.empty()) close(out.back());
            TaskBucket c;
            c.bucket = cb;
            c.start = e.start;
            out.push_back(c);
            next_fine = cb * kLevelFactor;
        }
        TaskBucket& c = out.back();
        fill(c, e.bucket, e.start);
        c.changes += e.changes;
        c.end = e.end;
        for (size_t s = 0; s < 5; ++s) c.ns[s] += e.ns[s];
        next_fine = e.bucket + 1;
    }
    if (!out.empty()) close(out.back());
    return out;
}

}  // namespace

void ViewIndex::lay_out(engine::EventMerger& merger, uint32_t cpu_buckets, uint32_t task_buckets) {
    Impl& im = *impl_;
    task_buckets = std::max<uint32_t>(1, task_buckets);
    im.ratio = std::max<uint32_t>(1, cpu_buckets / task_buckets);
    im.task_buckets = task_buckets;
    im.cpu_buckets = task_buckets * im.ratio;
    for (size_t k = 0; k < merger.sources().size(); ++k) {
        const auto& s = merger.sources()[k];
        const std::string instance = s.buffer ? s.file->buffer_name(s.buffer) : std::string();
        lanes_.push_back({s.file_index, s.buffer, instance, s.stream.cpu(), k});
    }
    // The time span first: buckets are fixed fractions of it.
    const uint64_t last = last_timestamp(merger);
    uint64_t first = UINT64_MAX;
    for (auto& s : merger.sources())
        if (const engine::Record* r = s.stream.peek()) first = std::min(first, r->ts);
    if (first == UINT64_MAX) first = 0;
    start_ = first;
    end_ = std::max(first, last);
    const uint64_t span = end_ - start_ + 1;
    im.cpu_ns = std::max<uint64_t>(1, (span + im.cpu_buckets - 1) / im.cpu_buckets);
    im.task_ns = im.cpu_ns * im.ratio;
    im.cpu.assign(lanes_.size(), std::vector<CpuBucket>(im.cpu_buckets));
    im.open.assign(lanes_.size(), {});
    im.last_ts.assign(lanes_.size(), 0);
    im.goes_back.assign(lanes_.size(), 0);
}

void ViewIndex::add_slice(size_t lane, int32_t pid, uint64_t a, uint64_t b) {
    if (b <= a) return;
    Impl& im = *impl_;
    auto& buckets = im.cpu[lane];
    OpenBucket& ob = im.open[lane];
    uint32_t ba = im.cpu_bucket(start_, a), bb = im.cpu_bucket(start_, b - 1);
    buckets[ba].starts++;
    for (uint32_t k = ba; k <= bb; ++k) {
        const uint64_t bs = start_ + k * im.cpu_ns, be = bs + im.cpu_ns;
        const uint64_t lo = std::max(a, bs), hi = std::min(b, be);
        if (hi <= lo) continue;
        CpuBucket& cb = buckets[k];
        if (lo == bs) cb.running_at_start = pid;
        cb.busy += hi - lo;
        cb.first_busy = std::min(cb.first_busy, lo);
        if (ob.index != k) {
            if (ob.index != UINT32_MAX) buckets[ob.index].dominant = ob.dominant();
            ob.index = k;
            ob.ran.clear();
        }
        ob.add(pid, hi - lo);
    }
}

void ViewIndex::add_state(int32_t pid, TaskState s, uint64_t a, uint64_t b, TaskState next) {
    const Impl& im = *impl_;
    TaskSummary& t = tasks_[pid];
    t.pid = pid;
    auto entry = [&](uint32_t bk, TaskState at_start) -> TaskBucket& {
        if (t.buckets.empty() || t.buckets.back().bucket != bk) {
            TaskBucket tb;
            tb.bucket = bk;
            tb.start = at_start;
            tb.end = at_start;
            t.buckets.push_back(tb);
        }
        return t.buckets.back();
    };
    const uint32_t ba = im.task_bucket(start_, a), bb = im.task_bucket(start_, b);
    const auto si = static_cast<size_t>(s);
    if (ba == bb) {
        entry(ba, s).ns[si] += b - a;
    } else {
        entry(ba, s).ns[si] += start_ + (ba + 1) * im.task_ns - a;
        entry(bb, s).ns[si] += b - (start_ + bb * im.task_ns);
    }
    if (next != s) {  // a transition at B (not the end of the pass)
        TaskBucket& e = entry(bb, s);
        e.changes++;
        e.end = next;
    }
}

void ViewIndex::count_record(size_t lane, const engine::Record& r, const EventType& type) {
    Impl& im = *impl_;
    const std::string name = std::string(type.system) + ":" + std::string(type.name);
    if (++counts_[name] == 1) first_[name] = r.ts;
    ++total_;
    if (r.missed != 0 && dropped_.size() < kMaxDropped) dropped_.push_back({lane_name(lane), r.ts, r.missed});
    CpuBucket& cb = im.cpu[lane][im.cpu_bucket(start_, r.ts)];
    cb.events++;
    if (cb.offset == UINT64_MAX) cb.offset = r.offset;
}

void ViewIndex::close_lanes() {
    Impl& im = *impl_;
    for (size_t lane = 0; lane < lanes_.size(); ++lane) {
        auto& buckets = im.cpu[lane];
        if (im.open[lane].index != UINT32_MAX)
            buckets[im.open[lane].index].dominant = im.open[lane].dominant();
        im.open[lane] = {};
        // A bucket without records starts where the next one with records does.
        uint64_t next = engine::kStreamEnd;
        for (size_t k = buckets.size(); k-- > 0;) {
            if (buckets[k].offset == UINT64_MAX) buckets[k].offset = next;
            next = buckets[k].offset;
        }
    }
}

// The coarser levels, each kLevelFactor buckets of the one below in one, down to one bucket:
// a query reads the level whose buckets are at most a pixel wide (a few per pixel), so its cost
// is bounded by its width, not by the changes in its range.
void ViewIndex::build_levels() {
    const Impl& im = *impl_;
    for (auto& [pid, t] : tasks_) {
        t.buckets.shrink_to_fit();  // grown by doubling: up to half of it was slack
        const std::vector<TaskBucket>* below = &t.buckets;
        uint64_t below_count = im.task_buckets;
        while (below_count > 1) {
            t.levels.push_back(
                coarsen(*below, static_cast<uint32_t>(below_count), im.task_ns * level_ns(t.levels.size())));
            t.levels.back().shrink_to_fit();
            below = &t.levels.back();
            below_count = (below_count + kLevelFactor - 1) / kLevelFactor;
        }
    }
}

Expected<std::unique_ptr<ViewIndex>> ViewIndex::open(const std::vector<std::string>& files,
                                                     uint32_t cpu_buckets, uint32_t task_buckets,
                                                     ViewMarks* marks) {
    std::unique_ptr<ViewIndex> ix(new ViewIndex());
    ViewIndex& v = *ix;
    for (const auto& f : files)
        if (Status st = v.set_.add_file(f, engine::OpenOptions{}); !st) return st.error();
    v.set_.pair_guests();
    Impl& im = *v.impl_;
    for (size_t f = 0; f < v.set_.size(); ++f) im.sched.push_back(SchedTypes::of(v.set_.file(f)));
    for (size_t f = 0; f < v.set_.size(); ++f) im.tgids.emplace_back(v.set_.file(f));

    // Every buffer (instances print in `report` too): a lane per CPU of each.
    engine::EventMerger merger;
    if (Status st = v.set_.build_merger(view_buffers(v.set_), {}, merger); !st) return st.error();
    v.lay_out(merger, cpu_buckets, task_buckets);

    SchedTracker tracker(im.sched, v.lanes_.size());
    tracker.on_slice = [&v](size_t lane, int32_t pid, uint64_t a, uint64_t b) {
        v.add_slice(lane, pid, a, b);
    };
    tracker.on_state = [&v](int32_t pid, TaskState s, uint64_t a, uint64_t b, TaskState next) {
        v.add_state(pid, s, a, b, next);
    };
    const engine::Record* r;
    engine::MergeSource* src;
    while (merger.next(r, src)) {
        const size_t lane = merger.index_of(src);
        if (r->ts < im.last_ts[lane]) im.goes_back[lane] = 1;
        im.last_ts[lane] = r->ts;
        const EventType* type = src->file->type_of(r->data, r->size);
        if (!type) continue;  // report skips these too
        Event ev(type, src->file, {r->data, r->size}, r->ts, r->cpu, r->missed, r->trailing);
        v.count_record(lane, *r, *type);
        tracker.feed(lane, src->file_index, ev);
        im.tgids[src->file_index].feed(ev);
        if (marks) marks->feed(lane, src->file_index, ev);
    }
    if (Status st = merger.status(); !st) return st.error();
    if (marks) marks->finish(v.set_);
    tracker.finish(v.end_);
    v.close_lanes();
    v.build_levels();
    return ix;
}

int32_t ViewIndex::tgid(int32_t id) const {
    const size_t file = task_file(id);
    return file < impl_->tgids.size() ? task_id(file, impl_->tgids[file].tgid(task_pid(id))) : id;
}

std::string ViewIndex::comm(int32_t id) {
    const size_t file = task_file(id);
    return file < set_.size() ? std::string(set_.file(file).comm(task_pid(id))) : std::string();
}

std::optional<uint64_t> ViewIndex::start_position(size_t file, int cpu, uint64_t from) const {
    const Impl& im = *impl_;
    for (size_t l = 0; l < lanes_.size(); ++l)
        if (lanes_[l].file == file && lanes_[l].buffer == 0 && lanes_[l].cpu == cpu && !im.goes_back[l])
            return im.cpu[l][im.cpu_bucket(start_, from)].offset;
    return std::nullopt;
}

bool ViewIndex::in_time_order() const noexcept {
    for (size_t f = 0; f < set_.size(); ++f)
        if (set_.file(f).buffer_count() > 1) return false;
    return std::none_of(impl_->goes_back.begin(), impl_->goes_back.end(), [](char c) { return c != 0; });
}

ViewIndex::Sizes ViewIndex::sizes() const {
    Sizes z;
    z.cpu_bytes = impl_->cpu.size() * impl_->cpu_buckets * sizeof(CpuBucket);
    z.tasks = tasks_.size();
    for (const auto& [pid, t] : tasks_) {
        z.task_bytes += sizeof(TaskSummary) + t.buckets.capacity() * sizeof(TaskBucket);
        z.task_entries += t.buckets.size();
        for (const auto& l : t.levels) {
            z.task_bytes += l.capacity() * sizeof(TaskBucket);
            z.task_entries += l.size();
        }
    }
    z.dropped_bytes = dropped_.capacity() * sizeof(Dropped);
    return z;
}

}  // namespace ringscope::view
