// InsnDecoder::next_path: the walk from run to run of the block cache, the branches answered from
// the TNT bits the query decoder holds (libxdc's way), through direct jumps and calls and
// compressed returns, each kind of run a step of its own. next_path_timed's walk (kTimed) takes
// the bits at hand only up to the first whose answer moves the time, and marks where a query
// moved it.
#include "ipt/errors.hpp"
#include "ipt/insn_decoder.hpp"

namespace ringscope::ipt {

// next_path's state, in registers while the steps are inlined (none takes its address).
struct InsnDecoder::Walk {
    uint64_t bits = 0, ninsn = 0;
    unsigned n = 0, used = 0, count = 0, direct = 0;
    uint32_t index = 0;  // the run to take next (0: none)
    uint64_t time = 0;   // kTimed: the time after the last run taken
    uint32_t marks = 0;  // kTimed: in marks_
    int status = 0;
    bool stale = false;  // ip_ not set since the last run taken (it is run index's)
    bool stop = false;

    // The next TNT bit at hand (used < n).
    unsigned bit() const noexcept { return static_cast<unsigned>((bits >> (n - 1 - used)) & 1); }
    void take(uint32_t* walk, uint32_t at, uint32_t insns) noexcept {
        walk[count++] = at;
        ninsn += insns;
    }
};

// Out of next_path's loop: its locals stay in registers (none has its address taken).
__attribute__((noinline)) uint32_t InsnDecoder::link_next(uint32_t index, int slot) noexcept {
    uint32_t next = 0;
    // A cache that starts again would take the runs walked with it: stop before.
    if (cache_.full() || !cache_.find(image_, ip_, static_cast<uint8_t>(mode_), &next)) return 0;
    cache_.at(index).next[slot] = next;
    return next;
}

// The successor of a run of HotRun::cond, jump or call in slot (of a ret: at ip_): sets ip_ to it
// and returns its index, remembered in the HotRun, or 0 (nothing decodes there, or the cache would
// start again).
__attribute__((noinline)) uint32_t InsnDecoder::link_hot(uint32_t index, unsigned slot) noexcept {
    const CachedRun& run = cache_.at(index);
    const uint64_t after = run.end_ip + run.last.size;
    const uint64_t target = after + static_cast<uint64_t>(static_cast<int64_t>(run.last.displacement));
    const HotRun::Kind kind = cache_.hot(index).kind;
    if (kind != HotRun::ret) ip_ = kind == HotRun::cond && !slot ? after : target;
    uint32_t next = 0;
    if (cache_.full() || !cache_.find(image_, ip_, static_cast<uint8_t>(mode_), &next)) return 0;
    cache_.hot(index).next[slot] = next;
    return next;
}

// A branch the bits at hand decide, or a direct one: one load a run, no check.
[[gnu::always_inline]] inline bool InsnDecoder::walk_direct(Walk& w, const HotRun& h) noexcept {
    if (!((h.kind == HotRun::cond && w.used < w.n) || h.kind == HotRun::jump || h.kind == HotRun::call))
        return false;
    const bool cond = h.kind == HotRun::cond;
    // Taken or not without a branch on the bit (it mispredicts where not biased).
    const unsigned slot = cond ? w.bit() : 0;
    w.used += cond;
    w.direct += !cond;
    w.take(walk_, w.index, h.ninsn);
    // With the call's run, whose HotRun keeps where its return goes (next[1]).
    if (h.kind == HotRun::call)
        retstack_.push(cache_.at(w.index).end_ip + cache_.at(w.index).last.size,
                       uint64_t{cache_.generation()} << 32 | w.index);
    const uint32_t next = h.next[slot];
    w.index = next ? next : link_hot(w.index, slot);
    w.stale = true;
    return true;
}

// A compressed return: where it went from the call walked (a call pushed it in this cache's
// generation), else where this return went last, else looked up.
[[gnu::always_inline]] inline bool InsnDecoder::walk_return(Walk& w, const HotRun& h) noexcept {
    uint64_t to = 0, hint = 0;
    if (h.kind != HotRun::ret || w.used >= w.n || !w.bit() || retstack_.pop(to, hint) != 0) return false;
    ++w.used;
    w.take(walk_, w.index, h.ninsn);
    const uint32_t call = hint >> 32 == cache_.generation() ? static_cast<uint32_t>(hint) : 0;
    uint32_t next = call ? cache_.hot(call).next[1] : h.next[1];
    if (!next || cache_.at(next).ip != to || cache_.at(next).mode != mode_) {
        ip_ = to;
        next = link_hot(w.index, 1);
        if (call && next) cache_.hot(call).next[1] = next;
    }
    w.index = next;
    w.stale = true;
    return true;
}

// The bits at hand answered (the query decoder told so).
[[gnu::always_inline]] inline void InsnDecoder::walk_skip_bits(Walk& w) noexcept {
    if (!w.used) return;
    query_.skip_bits(w.used);
    // As cond_branch answers while bits are left.
    status_ = 0;
    w.used = 0;
}

// After a query: the bits now at hand. Timed, those answered with the time as it is, and where
// the query moved the time, a mark after the run just taken.
template <bool kTimed>
[[gnu::always_inline]] inline void InsnDecoder::walk_peek(Walk& w) noexcept {
    if constexpr (kTimed) {
        uint64_t now = 0;
        query_.time(now, nullptr, nullptr);
        if (now != w.time) {
            marks_[w.marks++] = {w.count, now};
            w.time = now;
        }
        w.n = query_.peek_bits_at_this_time(63, w.bits);
    } else {
        w.n = query_.peek_bits(63, w.bits);
    }
}

// A conditional branch past the bits at hand: the query decoder's answer, as proceed asks for
// it. The walk stops at an error, an event or the end, with ip_ where proceed leaves it.
template <bool kTimed>
[[gnu::always_inline]] inline bool InsnDecoder::walk_refill(Walk& w, const HotRun& h) noexcept {
    if (h.kind != HotRun::cond || tick_events_) return false;
    walk_skip_bits(w);
    int taken = 0;
    w.status = query_.cond_branch(taken);
    w.take(walk_, w.index, h.ninsn);
    // As proceed counts for libipt master's TRIG: the branch's IP is the last the trace gave.
    since_anchor_ = w.status < 0 ? since_anchor_ + 1 : 0;
    if (w.status < 0 || ((status_ = w.status) & (pts_event_pending | pts_eos))) {
        const CachedRun& run = cache_.at(w.index);
        ip_ = run.end_ip + run.last.size;
        if (w.status >= 0 && taken) ip_ += static_cast<uint64_t>(static_cast<int64_t>(run.last.displacement));
        if (w.status >= 0) w.status = 0;
        w.stale = false;
        w.stop = true;
        return true;
    }
    w.status = 0;
    walk_peek<kTimed>(w);
    const uint32_t next = h.next[taken];
    w.index = next ? next : link_hot(w.index, static_cast<unsigned>(taken));
    w.stale = true;
    return true;
}

// Anything else (indirect and far branches, returns without their bit) as next() takes it, from
// the trace's state as it stands; the successor where the run's CachedRun::next says, checked.
template <bool kTimed>
[[gnu::always_inline]] inline void InsnDecoder::walk_cold(Walk& w) noexcept {
    w.stale = false;
    const CachedRun& run = cache_.at(w.index);
    ip_ = run.ip;
    if (!run.ends_in_branch) {
        w.stop = true;
        return;
    }
    const DecodedInsn last = run.last;
    const uint64_t after = run.end_ip + last.size;
    w.take(walk_, w.index, run.ninsn);
    walk_skip_bits(w);
    Insn insn;
    insn.ip = ip_ = run.end_ip;
    insn.size = last.size;
    w.status = proceed(insn, last);
    if (w.status < 0)
        w.n = 0;
    else
        walk_peek<kTimed>(w);
    // An event or the end: checked at this instruction, as next() does.
    if (w.status < 0 || (status_ & (pts_event_pending | pts_eos))) {
        w.stop = true;
        return;
    }
    const int slot = ip_ != after;
    uint32_t next = cache_.at(w.index).next[slot];
    if (!next || cache_.at(next).ip != ip_ || cache_.at(next).mode != mode_) next = link_next(w.index, slot);
    w.index = next;
}

template <bool kTimed>
int InsnDecoder::walk_path(InsnPath& path) noexcept {
    path.nruns = 0;
    if (!enabled_ || process_event_ || process_insn_ || (status_ & pts_event_pending)) {
        const int status = next_block(path.single);
        path.ninsn = path.single.ninsn;
        return status;
    }
    uint32_t index = 0;
    if (link_run_ && link_generation_ == cache_.generation()) {
        index = cache_.at(link_run_).next[link_slot_];
        if (index && (cache_.at(index).ip != ip_ || cache_.at(index).mode != mode_)) index = 0;
    }
    if (!index && !cache_.find(image_, ip_, static_cast<uint8_t>(mode_), &index)) index = 0;
    Walk w;
    w.index = index;
    if constexpr (kTimed) query_.time(w.time, nullptr, nullptr);
    walk_peek<kTimed>(w);
    while (w.index && w.count < kMaxWalk && !w.stop) {
        const HotRun& h = cache_.hot(w.index);
        if (!walk_direct(w, h) && !walk_return(w, h) && !walk_refill<kTimed>(w, h)) walk_cold<kTimed>(w);
    }
    // Where the last run taken led (link_hot set it when it found nothing there).
    if (w.stale && w.index) ip_ = cache_.at(w.index).ip;
    if (!w.count) {
        const int status = next_block(path.single);
        path.ninsn = path.single.ninsn;
        return status;
    }
    walk_skip_bits(w);
    // Where the walk stopped: the next call starts there without a lookup.
    link_run_ = walk_[w.count - 1];
    const CachedRun& last = cache_.at(link_run_);
    link_slot_ = ip_ == last.end_ip + last.last.size ? 0 : 1;
    link_generation_ = cache_.generation();
    path.ninsn = w.ninsn;
    path.nruns = w.count;
    // The runs not ended by a direct branch were ended by a conditional one (hot or out of bits)
    // or by one that is neither direct nor conditional (returns, indirect and far branches).
    path.ends = w.count - w.direct;
    path.runs = walk_;
    if constexpr (kTimed) {
        path.marks = marks_;
        path.nmarks = w.marks;
    }
    path.mode = mode_;
    path.speculative = speculative_;
    if (w.status < 0) return w.status;
    Insn insn;
    insn.ip = last.end_ip;
    const DecodedInsn iext = last.last;
    insn.size = iext.size;
    return check_ip_event(&insn, &iext);
}

int InsnDecoder::next_path(InsnPath& path) noexcept {
    return walk_path<false>(path);
}

int InsnDecoder::next_path_timed(InsnPath& path) noexcept {
    return walk_path<true>(path);
}

}  // namespace ringscope::ipt
