// ipt flow -j: the trace cut at PSBs into parts, each decoded on a worker from its PSB with a
// decoder of its own (from a pool) into a buffer, and on past the next cut. A fresh decoder at a
// PSB does not have the sequential one's state there (the return stack, the time calibration, an
// open block, the last instruction), so a part's output is used only from the first step where the
// previous part's decoder, running on past the cut, is in the same state at the same trace offset
// and instruction (FlowState): from there on both decode alike, so the previous part's output up
// to that step and this part's after it are the sequential output. The return stack is compared
// as far as the fresh decoder's reaches: its bottom is open (RetStack::open), and a return that
// needs an entry under it suspends the part (as does reaching the next cut with the bottom still
// open). Once the part before has joined, the entries it had under those are handed on
// (RetStack::assign_below, as many as a full stack would have kept) and the part resumed. When no
// step matches, the rest is decoded sequentially (its first bytes, already written, not printed
// again), so the work stays within twice the sequential one.
#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ipt/errors.hpp"
#include "ipt/flow_driver.hpp"
#include "ipt/flow_state.hpp"
#include "ipt/image.hpp"
#include "ipt/ordered_pipeline.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/psb_parts.hpp"

namespace ringscope::ipt {
namespace {

// Steps are compared in the first bytes after a cut (the part's size, at most kMaxWindow: a few
// PSB segments), at most kMaxMarks of them. A part marks each of its first kDenseMarks steps, then
// every kSparseEvery-th (a mark is a copy of the decoder's state): joins come at the first steps
// once the decoders agree, and a later one only needs the part before to decode a few steps more.
constexpr uint64_t kMaxWindow = 8 * 1024;
constexpr size_t kMaxMarks = 2048;
constexpr uint64_t kDenseMarks = 32;
constexpr uint64_t kSparseEvery = 16;

double thread_cpu() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Mark {
    FlowState state;
    FlowLoopState loop;
    uint64_t step = 0;  // the part's step number
    long out = 0;       // bytes of output before it
    FlowStats stats;    // counted before it
    int high = 0;       // fresh: the most return stack entries since the mark before
    // Fresh: the step from it took instructions from the decoder, so loop.insn (the last
    // instruction before, which a fresh decoder does not have) is written before it is read.
    bool insn_dead = false;
    uint64_t decoded_steps = 0;  // loop.decoded_steps at it
};

// Whether part b's step f continues the sequential decode where its part before is at step t.
bool continues(const Mark& t, const Mark& f) {
    if (!t.state.continued_by(f.state)) return false;
    if (f.insn_dead) {
        FlowLoopState fl = f.loop;
        fl.insn = t.loop.insn;
        return fl == t.loop;
    }
    return f.loop == t.loop;
}

// The last fresh mark of a part, once the loop has gone past its step (at decoded_steps).
void settle(std::vector<Mark>& fresh, uint64_t decoded_steps) {
    fresh.back().insn_dead = decoded_steps > fresh.back().decoded_steps;
}

class PartHook;

// Decoders that go from part to part, their block caches with them.
class DecoderPool {
  public:
    DecoderPool(const FlowOptions& o, const Image& image) : o_(o), image_(image) {}
    // A decoder for part 0 is a new one: a used one would sync forward from where it stopped.
    std::unique_ptr<InsnDecoder> take(bool fresh) {
        if (!fresh) {
            std::lock_guard lock(mutex_);
            if (!free_.empty()) {
                auto d = std::move(free_.back());
                free_.pop_back();
                return d;
            }
        }
        auto d = std::make_unique<InsnDecoder>(o_.config, image_, o_.filter);
        d->set_tick_events(o_.event_tick);
        return d;
    }
    void give(std::unique_ptr<InsnDecoder> d) {
        std::lock_guard lock(mutex_);
        free_.push_back(std::move(d));
    }

  private:
    const FlowOptions& o_;
    const Image& image_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<InsnDecoder>> free_;
};

struct Part {
    std::string buf;
    std::vector<Mark> fresh;  // steps just after its own cut
    std::vector<Mark> tail;   // steps just after the next cut
    FlowStats stats;
    bool stopped = false;  // at the end of its tail (else it decoded to the end)
    // fresh is complete: the part before may compare its tail with it while it decodes.
    std::atomic<bool> fresh_done{false};
    // While the part is suspended (FlowRun::run returned false): what it resumes with.
    std::unique_ptr<InsnDecoder> decoder;
    FlowOptions o;  // o.out appends to buf
    std::unique_ptr<PartHook> hook;
    std::unique_ptr<FlowRun> run;
    uint64_t steps = 0;     // decoded (once finished)
    double worker_cpu = 0;  // thread CPU s of its run on a worker

    bool suspended() const { return run != nullptr; }
    void done_fresh() {
        fresh_done.store(true, std::memory_order_release);
        fresh_done.notify_all();
    }
    // The run is done: its output in buf, its decoder back in the pool.
    void finish(DecoderPool& pool);
    ~Part();
};

// Whether the stream may hold CYC packets, which make the time calibration live: a pass over the
// whole stream (with pages, the pages behind it are given back, then restarted). A stream that
// does not decode cleanly from its first PSB to its end may hold them.
bool may_have_cyc(const Config& config, PagesBehind* pages) {
    PacketDecoder packets(config);
    if (packets.sync_forward() < 0) return false;
    bool cyc = false;
    const int err = packets.for_each([&](uint64_t offset, const Packet& p) {
        cyc |= p.type == PacketType::cyc;
        if (pages) pages->at(offset);
    });
    if (pages) pages->restart();
    return cyc || err != -pte_eos;
}

// The loop state as far as it decides what comes next at offset (the sync error and resync
// positions behind it, and the count of instructions at a finished offset, no longer do).
FlowLoopState live(FlowLoopState loop, uint64_t offset) {
    if (loop.sync < offset) loop.sync = 0;
    if (loop.resynced_at < offset) loop.resynced_at = ~uint64_t{0};
    if (loop.last_offset != offset) loop.last_offset = offset, loop.same_offset = 0;
    loop.decoded_steps = 0;
    return loop;
}

class PartHook final : public FlowHook {
  public:
    PartHook(Part& part, const Part* next, bool fresh, uint64_t cut, uint64_t next_cut, bool has_next,
             FlowCompare compare, uint64_t window)
        : part_(part),
          next_(next),
          fresh_(fresh),
          cut_(cut),
          next_cut_(next_cut),
          has_next_(has_next),
          compare_(compare),
          window_(window) {}

    Step at_step(InsnDecoder& d, const FlowLoopState& loop, uint64_t offset) override {
        ++step_;
        if (fresh_ && !part_.fresh_done.load(std::memory_order_relaxed)) {
            settle_last(loop.decoded_steps);
            if (offset >= cut_ + window_ || part_.fresh.size() >= kMaxMarks) {
                part_.done_fresh();
            } else if (step_ <= kDenseMarks || step_ % kSparseEvery == 0) {
                mark(part_.fresh, d, loop, offset);
                Mark& m = part_.fresh.back();
                m.high = d.retstack().high();
                m.decoded_steps = loop.decoded_steps;
                d.retstack().reset_high();
                unsettled_ = true;
            }
        }
        if (!has_next_ || offset < next_cut_) return go;
        // The tail is compared with the next part in full: the entries from before the cut first.
        if (d.retstack().is_open()) return suspend;
        if (offset >= next_cut_ + window_ || part_.tail.size() >= kMaxMarks) {
            part_.stopped = true;
            return stop;
        }
        mark(part_.tail, d, loop, offset);
        // On the calling thread, whose next step is to wait for the next part anyway: for its
        // fresh steps, rather than decode on what the next part decodes (the window's bytes).
        if (on_caller_ && !next_->fresh_done.load(std::memory_order_acquire)) {
            ++slept_;
            next_->fresh_done.wait(false, std::memory_order_acquire);
        }
        // The next part's fresh steps at hand: no need to decode on once one continues this one.
        if (next_->fresh_done.load(std::memory_order_acquire)) {
            const Mark& t = part_.tail.back();
            for (const Mark& f : next_->fresh) {
                if (continues(t, f)) {
                    part_.stopped = true;
                    return stop;
                }
            }
        }
        return go;
    }

    // The last fresh mark, at the step after it (or at the part's end): settle()d once.
    void settle_last(uint64_t decoded_steps) {
        if (unsettled_) settle(part_.fresh, decoded_steps);
        unsettled_ = false;
    }
    uint64_t steps() const { return step_; }
    // Resumed on the calling thread, which has released the parts up to the one after this one.
    void resume_on_caller() { on_caller_ = true; }
    // How often it waited there for the next part.
    size_t slept() const { return slept_; }

  private:
    long out_pos() {
        std::fflush(part_.o.out);
        return static_cast<long>(part_.buf.size());
    }
    void mark(std::vector<Mark>& to, const InsnDecoder& d, const FlowLoopState& loop, uint64_t offset) {
        to.push_back(Mark{FlowState::of(d, compare_), live(loop, offset), step_, out_pos(), part_.stats});
    }

    Part& part_;
    const Part* next_;
    bool fresh_;
    uint64_t cut_, next_cut_;
    bool has_next_;
    FlowCompare compare_;
    uint64_t window_;
    uint64_t step_ = 0;
    bool unsettled_ = false;
    bool on_caller_ = false;
    size_t slept_ = 0;
};

Part::~Part() {
    if (o.out) std::fclose(o.out);
}

void Part::finish(DecoderPool& pool) {
    steps = hook->steps();
    std::fclose(o.out);
    o.out = nullptr;
    run.reset();
    hook.reset();
    pool.give(std::move(decoder));
}

ssize_t append(void* cookie, const char* data, size_t n) {
    static_cast<std::string*>(cookie)->append(data, n);
    return static_cast<ssize_t>(n);
}

// A FILE that appends to to, through a buffer of its own (an open_memstream copies small writes
// byte by byte: a fifth of the time of --no-inst).
std::FILE* append_to(std::string& to) {
    cookie_io_functions_t io{};
    io.write = append;
    std::FILE* f = fopencookie(&to, "w", io);
    if (!f) std::abort();  // out of memory
    std::setvbuf(f, nullptr, _IOFBF, 1 << 16);
    return f;
}

// Parts in flight: made ahead of the workers (a part's hook reads the next one) and freed once
// joined, so that their marks and text do not stay to the end.
using Parts = std::vector<std::unique_ptr<Part>>;

// The parts, with the output buffers of those retired kept (their capacity) for those made next.
class PartSet {
  public:
    explicit PartSet(size_t n) : parts_(n) {}
    Parts& parts() { return parts_; }
    Part& operator[](size_t k) { return *parts_[k]; }
    // Makes the parts up to last.
    void make_to(size_t last) {
        for (; made_ <= last && made_ < parts_.size(); ++made_) {
            parts_[made_] = std::make_unique<Part>();
            if (!spare_.empty()) parts_[made_]->buf = std::move(spare_.back()), spare_.pop_back();
        }
    }
    // Part k is done with (no worker reads it any more): its counts added to count.
    void retire(size_t k, FlowParallelCount& count) {
        std::unique_ptr<Part>& p = parts_[k];
        if (!p) return;
        count.steps += p->steps;
        count.worker_cpu += p->worker_cpu;
        p->buf.clear();
        spare_.push_back(std::move(p->buf));
        p.reset();
    }
    void retire_all(FlowParallelCount& count) {
        for (size_t k = 0; k < parts_.size(); ++k) retire(k, count);
    }

  private:
    Parts parts_;
    std::vector<std::string> spare_;
    size_t made_ = 0;
};

void decode_part(Parts& parts, DecoderPool& pool, const Image& image, const FlowOptions& o,
                 const std::vector<uint64_t>& cuts, size_t k, uint64_t window, FlowCompare compare) {
    const double cpu = thread_cpu();
    Part& part = *parts[k];
    part.o = o;
    part.o.out = append_to(part.buf);
    part.decoder = pool.take(k == 0);
    const bool has_next = k + 2 < cuts.size();
    part.hook = std::make_unique<PartHook>(part, has_next ? parts[k + 1].get() : nullptr, k > 0, cuts[k],
                                           has_next ? cuts[k + 1] : 0, has_next, compare, window);
    part.run = std::make_unique<FlowRun>(*part.decoder, image, part.o, part.stats, part.hook.get());
    // Part 0 is the sequential decode from the stream's start; the others do not know the
    // return stack before their PSB.
    const bool done = part.run->run(k > 0 ? &cuts[k] : nullptr, k > 0);
    if (!part.fresh_done.load(std::memory_order_relaxed))
        part.hook->settle_last(part.run->loop_state().decoded_steps);
    part.done_fresh();
    if (done) part.finish(pool);
    part.worker_cpu = thread_cpu() - cpu;
}

// The first step where part a's tail (from step `from` on) continues as part b's fresh decoder
// does: the indexes, or false.
bool find_join(const Part& a, uint64_t from, const Part& b, size_t& ta, size_t& fb) {
    for (size_t i = 0; i < a.tail.size(); ++i) {
        const Mark& t = a.tail[i];
        if (t.step < from) continue;
        for (size_t j = 0; j < b.fresh.size(); ++j) {
            const Mark& f = b.fresh[j];
            if (continues(t, f)) {
                ta = i;
                fb = j;
                return true;
            }
        }
    }
    return false;
}

// Part b, suspended, joined at its fresh step fb to the tail step t of the part before: the
// return stack entries under those b knew at fb, as many as a full stack would have kept since;
// then b decoded to its end (on the calling thread: its steps and waits added to count's).
// Whether entries were handed on.
bool hand_on(Part& b, size_t fb, const Mark& t, DecoderPool& pool, FlowParallelCount& count) {
    if (!b.suspended()) return false;
    RetStack& stack = b.decoder->retstack();
    const Mark& f = b.fresh[fb];
    const size_t known = f.state.retstack.size();
    int high = static_cast<int>(known);
    for (size_t j = fb + 1; j < b.fresh.size(); ++j) high = std::max(high, b.fresh[j].high);
    high = std::max(high, stack.high());
    const int under = static_cast<int>(t.state.retstack.size() - known);
    stack.assign_below(t.state.retstack.data() + known, std::min(under, RetStack::kMax - high));
    // The bottom known now: nothing suspends it again.
    const uint64_t before = b.hook->steps();
    b.hook->resume_on_caller();
    b.run->resume();
    count.caller_slept += b.hook->slept();
    b.finish(pool);
    count.caller_steps += b.steps - before;
    return true;
}

// A FILE that drops the first `skip` bytes written to it and passes the rest to `to`.
struct SkipSink {
    std::FILE* to;
    uint64_t skip;
};

ssize_t skip_write(void* cookie, const char* data, size_t n) {
    auto* s = static_cast<SkipSink*>(cookie);
    size_t drop = s->skip < n ? static_cast<size_t>(s->skip) : n;
    s->skip -= drop;
    if (n > drop) std::fwrite(data + drop, 1, n - drop, s->to);
    return static_cast<ssize_t>(n);
}

void add(FlowStats& to, const FlowStats& end, const FlowStats& begin) {
    to.insn += end.insn - begin.insn;
    to.blocks += end.blocks - begin.blocks;
}

// The rest after a cut that did not join: sequentially from the start (on the calling thread),
// without the `written` bytes already printed.
void decode_sequentially(const Image& image, const FlowOptions& o, FlowStats& stats, PagesBehind* pages,
                         uint64_t written) {
    SkipSink sink{o.out, written};
    cookie_io_functions_t io{};
    io.write = skip_write;
    FlowOptions so = o;
    so.out = fopencookie(&sink, "w", io);
    if (!so.out) std::abort();
    stats = FlowStats{};
    InsnDecoder d(o.config, image, o.filter);
    d.set_tick_events(o.event_tick);
    if (pages) {
        pages->restart();
        PagesHook hook(*pages);
        FlowRun(d, image, so, stats, &hook).run();
    } else {
        flow_decode(d, image, so, stats);
    }
    std::fclose(so.out);
}

// How the trace is cut. A part's output is held until the calling thread takes it, so parts are
// smaller the more a trace byte prints: about 200 bytes with --no-inst (an address a line, 10
// instructions a byte on the bench stream), 500 with the disassembly. Parts of 4 KiB cost a few
// percent more CPU than parts of 64 KiB (their first steps marked, the threads handing over).
struct Layout {
    uint64_t part_bytes, window;
    size_t in_flight;  // parts started and not yet released
};

Layout layout(const FlowOptions& o) {
    const bool quiet = o.quiet && !o.check;
    const bool addresses = o.no_inst && !o.raw_insn && !o.check;
    Layout l{};
    l.part_bytes = o.part_bytes ? o.part_bytes : quiet ? 64 * 1024 : addresses ? 8 * 1024 : 4 * 1024;
    l.window = l.part_bytes < kMaxWindow ? l.part_bytes : kMaxWindow;
    // Slack: with jobs + 1 in flight the worker that finished the oldest part in work found the
    // window full and slept until the caller took it, at nearly every part (--no-inst -j 2: 2022
    // of 2030; 703 with 5 in flight). With --quiet a part holds its marks only.
    l.in_flight = (quiet ? 4 : 2) * size_t{o.jobs} + (quiet ? 0 : 1);
    return l;
}

}  // namespace

FlowParallelCount flow_decode_parallel(const Image& image, const FlowOptions& o, FlowStats& stats,
                                       PagesBehind* pages) {
    const double caller_cpu = thread_cpu();
    const Layout l = layout(o);
    std::vector<uint64_t> cuts = psb_cuts(o.config, l.part_bytes, pages);
    if (pages && pages->failed()) return {};
    const size_t n = cuts.size() < 2 ? 1 : cuts.size() - 1;
    if (cuts.size() < 2) cuts = {0, 0};
    // The time calibration is compared only where CYC packets read it (a pass over the packets).
    const bool time = o.event_time || o.event_tick;
    const bool tcal = time && may_have_cyc(o.config, pages);
    if (pages && pages->failed()) return {};
    const FlowCompare compare{time, tcal};
    DecoderPool pool(o, image);
    PartSet parts(n);
    FlowParallelCount count{n, 0, 0, n};
    // Parts below released + in_flight start: the one after the last of them is made too.
    parts.make_to(l.in_flight);
    uint64_t written = 0;
    bool done = false;
    {
        OrderedPipeline pipe(n, o.jobs, l.in_flight, [&](size_t k) {
            decode_part(parts.parts(), pool, image, o, cuts, k, l.window, compare);
        });
        size_t cur = 0;
        Mark start;  // where part cur's output is used from
        pipe.wait(0);
        auto take = [&](const Part& p, long from, long to) {
            std::fwrite(p.buf.data() + from, 1, static_cast<size_t>(to - from), o.out);
            written += static_cast<uint64_t>(to - from);
        };
        for (size_t k = 1; k <= n; ++k) {
            Part& c = parts[cur];
            if (k == n || !c.stopped) {
                // The last part, or one that decoded to the end: the rest is its output.
                take(c, start.out, static_cast<long>(c.buf.size()));
                add(stats, c.stats, start.stats);
                done = true;
                break;
            }
            pipe.wait(k);
            size_t ta = 0, fb = 0;
            if (!find_join(c, start.step, parts[k], ta, fb)) {
                count.sequential_from = k;
                break;
            }
            ++count.joined;
            const Mark& t = c.tail[ta];
            take(c, start.out, t.out);
            add(stats, t.stats, start.stats);
            if (pages && !pages->at(cuts[k])) break;
            // Released before part k is resumed here: its tail may wait for part k + 1.
            parts.make_to(k + l.in_flight);
            pipe.release(k - 1);
            count.handed_on += hand_on(parts[k], fb, t, pool, count);
            start = parts[k].fresh[fb];
            parts.retire(cur, count);
            cur = k;
        }
        const OrderedPipeline::Blocked blocked = pipe.blocked();
        count.caller_slept += blocked.caller;
        count.workers_slept = blocked.workers;
    }  // the workers have stopped: no part is written to any more
    parts.retire_all(count);
    if (!done && !(pages && pages->failed())) decode_sequentially(image, o, stats, pages, written);
    count.caller_cpu = thread_cpu() - caller_cpu;
    return count;
}

}  // namespace ringscope::ipt
