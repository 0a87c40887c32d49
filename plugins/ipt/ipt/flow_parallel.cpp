// ipt flow -j: the trace cut at PSBs into parts, each decoded on a worker from its PSB with a
// decoder of its own into a buffer, and on past the next cut. A fresh decoder at a PSB does not
// have the sequential one's state there (the return stack, the time calibration, an open block,
// the last instruction), so a part's output is used only from the first step where the previous
// part's decoder, running on past the cut, is in the same state at the same trace offset and
// instruction (FlowState): from there on both decode alike, so the previous part's output up to
// that step and this part's after it are the sequential output. The return stack is compared as
// far as the fresh decoder's reaches: a part is used only up to where it pops an empty stack.
// When no step matches, the rest is decoded sequentially (its first bytes, already written, not
// printed again), so the work stays within twice the sequential one.
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
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
// PSB segments), at most kMaxMarks of them.
constexpr uint64_t kMaxWindow = 8 * 1024;
constexpr size_t kMaxMarks = 2048;

struct Mark {
    FlowState state;
    FlowLoopState loop;
    uint64_t step = 0;  // the part's step number
    long out = 0;       // bytes of output before it
    FlowStats stats;    // counted before it
};

struct Part {
    std::string buf;
    std::vector<Mark> fresh;       // steps just after its own cut
    std::vector<Mark> tail;        // steps just after the next cut
    std::vector<uint64_t> spoilt;  // steps after which a return popped an empty stack
    FlowStats stats;
    bool stopped = false;  // at the end of its tail (else it decoded to the end)
    // fresh is complete: the part before may compare its tail with it while it decodes.
    std::atomic<bool> fresh_done{false};

    void free_buffer() { std::string().swap(buf); }
};

// The loop state as far as it decides what comes next at offset (the sync error and resync
// positions behind it, and the count of instructions at a finished offset, no longer do).
// Which packets the stream may hold that make more of FlowState live: CYC (the time calibration:
// with_tcal) and TRIG (the instruction count since the last IP: with_trig). A stream that does not
// decode cleanly from its first PSB to its end may hold either.
struct StreamPackets {
    bool cyc = false, trig = false;
};

StreamPackets may_have(const Config& config) {
    PacketDecoder packets(config);
    if (packets.sync_forward() < 0) return {};
    StreamPackets has;
    const int err = packets.for_each([&](uint64_t, const Packet& p) {
        has.cyc |= p.type == PacketType::cyc;
        has.trig |= p.type == PacketType::trig;
    });
    if (err != -pte_eos) has = {true, true};
    return has;
}

FlowLoopState live(FlowLoopState loop, uint64_t offset) {
    if (loop.sync < offset) loop.sync = 0;
    if (loop.resynced_at < offset) loop.resynced_at = ~uint64_t{0};
    if (loop.last_offset != offset) loop.last_offset = offset, loop.same_offset = 0;
    return loop;
}

class PartHook final : public FlowHook {
  public:
    PartHook(Part& part, const Part* next, std::FILE* out, bool fresh, uint64_t cut, uint64_t next_cut,
             bool has_next, FlowCompare compare, const FlowStats& stats, uint64_t window)
        : part_(part),
          next_(next),
          out_(out),
          fresh_(fresh),
          cut_(cut),
          next_cut_(next_cut),
          has_next_(has_next),
          compare_(compare),
          stats_(stats),
          window_(window) {}

    bool at_step(const InsnDecoder& d, const FlowLoopState& loop, uint64_t offset) override {
        ++step_;
        if (fresh_ && !part_.fresh_done.load(std::memory_order_relaxed)) {
            if (offset < cut_ + window_ && part_.fresh.size() < kMaxMarks)
                mark(part_.fresh, d, loop, offset);
            else
                part_.fresh_done.store(true, std::memory_order_release);
        }
        if (!has_next_ || offset < next_cut_) return false;
        if (offset >= next_cut_ + window_ || part_.tail.size() >= kMaxMarks) {
            part_.stopped = true;
            return true;
        }
        mark(part_.tail, d, loop, offset);
        // The next part's fresh steps at hand: no need to decode on once one continues this one.
        if (next_->fresh_done.load(std::memory_order_acquire)) {
            const Mark& t = part_.tail.back();
            for (const Mark& f : next_->fresh) {
                if (f.loop == t.loop && t.state.continued_by(f.state)) {
                    part_.stopped = true;
                    return true;
                }
            }
        }
        return false;
    }
    void at_error(int status) override {
        if (status == -pte_retstack_empty) part_.spoilt.push_back(step_);
    }

  private:
    long out_pos() {
        std::fflush(out_);
        return static_cast<long>(part_.buf.size());
    }
    void mark(std::vector<Mark>& to, const InsnDecoder& d, const FlowLoopState& loop, uint64_t offset) {
        to.push_back(Mark{FlowState::of(d, compare_), live(loop, offset), step_, out_pos(), stats_});
    }

    Part& part_;
    const Part* next_;
    std::FILE* out_;
    bool fresh_;
    uint64_t cut_, next_cut_;
    bool has_next_;
    FlowCompare compare_;
    const FlowStats& stats_;
    uint64_t window_;
    uint64_t step_ = 0;
};

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

void decode_part(std::vector<Part>& parts, const Image& image, const FlowOptions& o,
                 const std::vector<uint64_t>& cuts, size_t k, uint64_t window, FlowCompare compare) {
    Part& part = parts[k];
    FlowOptions po = o;
    po.out = append_to(part.buf);
    // A worker's decoder goes from part to part, its block cache with it (the pipeline's threads
    // end with it, and their decoders). Part 0 is the sequential decode from the stream's start:
    // a new decoder (a used one would sync forward from where it stopped).
    thread_local std::unique_ptr<InsnDecoder> decoder;
    if (!decoder || k == 0) {
        decoder = std::make_unique<InsnDecoder>(o.config, image, o.filter);
        decoder->set_tick_events(o.event_tick);
    }
    InsnDecoder& d = *decoder;
    const bool has_next = k + 2 < cuts.size();
    PartHook hook(part, has_next ? &parts[k + 1] : nullptr, po.out, k > 0, cuts[k],
                  has_next ? cuts[k + 1] : 0, has_next, compare, part.stats, window);
    flow_decode(d, image, po, part.stats, k > 0 ? &cuts[k] : nullptr, &hook);
    part.fresh_done.store(true, std::memory_order_release);
    std::fclose(po.out);
}

bool spoilt_after(const Part& p, uint64_t from) {
    for (uint64_t s : p.spoilt)
        if (s >= from) return true;
    return false;
}

// The first step where part a's tail (from step `from` on, before a return popped an empty stack
// unless a is exact) continues as part b's fresh decoder does: the indexes, or false.
bool find_join(const Part& a, uint64_t from, bool a_exact, const Part& b, size_t& ta, size_t& fb) {
    uint64_t spoilt = ~uint64_t{0};
    if (!a_exact)
        for (uint64_t s : a.spoilt)
            if (s >= from && s < spoilt) spoilt = s;
    for (size_t i = 0; i < a.tail.size(); ++i) {
        const Mark& t = a.tail[i];
        if (t.step < from) continue;
        if (t.step > spoilt) return false;
        for (size_t j = 0; j < b.fresh.size(); ++j) {
            const Mark& f = b.fresh[j];
            // b's output from f on is not the sequential one's once it pops an empty stack.
            if (spoilt_after(b, f.step)) continue;
            if (f.loop == t.loop && t.state.continued_by(f.state)) {
                ta = i;
                fb = j;
                return true;
            }
        }
    }
    return false;
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

}  // namespace

FlowParallelCount flow_decode_parallel(const Image& image, const FlowOptions& o, FlowStats& stats) {
    const uint64_t part_bytes = o.part_bytes ? o.part_bytes : 64 * 1024;
    const uint64_t window = part_bytes < kMaxWindow ? part_bytes : kMaxWindow;
    std::vector<uint64_t> cuts = psb_cuts(o.config, part_bytes);
    const size_t n = cuts.size() < 2 ? 1 : cuts.size() - 1;
    if (cuts.size() < 2) cuts = {0, 0};
    const StreamPackets has = may_have(o.config);
    const FlowCompare compare{o.event_time || o.event_tick, (o.event_time || o.event_tick) && has.cyc,
                              has.trig};
    std::vector<Part> parts(n);
    FlowParallelCount count{n, 0, n};
    uint64_t written = 0;
    bool done = false;
    {
        OrderedPipeline pipe(n, o.jobs, o.jobs + 1,
                             [&](size_t k) { decode_part(parts, image, o, cuts, k, window, compare); });
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
                if (cur == 0 || !spoilt_after(c, start.step)) {
                    take(c, start.out, static_cast<long>(c.buf.size()));
                    add(stats, c.stats, start.stats);
                    done = true;
                } else {
                    count.sequential_from = cur;
                }
                break;
            }
            pipe.wait(k);
            size_t ta = 0, fb = 0;
            if (!find_join(c, start.step, cur == 0, parts[k], ta, fb)) {
                count.sequential_from = k;
                break;
            }
            ++count.joined;
            const Mark& t = c.tail[ta];
            take(c, start.out, t.out);
            add(stats, t.stats, start.stats);
            start = parts[k].fresh[fb];
            c.free_buffer();
            c.fresh.clear();
            c.tail.clear();
            pipe.release(k - 1);
            cur = k;
        }
    }  // the workers have stopped: no part is written to any more
    parts.clear();
    if (done) return count;
    // No join: sequentially from the start, without what is written already.
    SkipSink sink{o.out, written};
    cookie_io_functions_t io{};
    io.write = skip_write;
    FlowOptions so = o;
    so.out = fopencookie(&sink, "w", io);
    if (!so.out) std::abort();
    stats = FlowStats{};
    InsnDecoder d(o.config, image, o.filter);
    d.set_tick_events(o.event_tick);
    flow_decode(d, image, so, stats);
    std::fclose(so.out);
    return count;
}

}  // namespace ringscope::ipt
