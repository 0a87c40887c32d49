// The instruction flow decoder (libipt 2.0.5's pt_insn_decoder): which instructions ran, in order,
// from the query decoder's answers and the code image. Events come between instructions, at the
// instruction or IP they bind to, with libipt's status bits: next() returns one instruction,
// event() the pending event (while pts_event_pending is set). With Config::packets full, libipt
// master's flow where it differs: TRIG events after their instruction count, a disable without
// IP bound to an instruction that needs the trace, a PTWRITE's event without IP.
#pragma once

#include <cstdint>

#include "ipt/block_cache.hpp"
#include "ipt/config.hpp"
#include "ipt/image.hpp"
#include "ipt/insn_class.hpp"
#include "ipt/query_decoder.hpp"
#include "ipt/query_event.hpp"
#include "ipt/ret_stack.hpp"

namespace ringscope::ipt {

struct Insn {
    uint64_t ip = 0;
    uint8_t size = 0;
    uint8_t raw[15] = {};
    InsnClass iclass = InsnClass::error;
    ExecMode mode = em_unknown;
    bool speculative = false;
    int isid = 0;

    bool operator==(const Insn&) const = default;
};

// IA32_RTIT_CTL.ADDRn_CFG and the ranges (ptxed's --filter:addrN_*): for erratum SKL014.
struct AddrFilter {
    uint32_t cfg = 0;  // 4 bits per range
    uint64_t a[4] = {}, b[4] = {};
    // libipt's pt_filter_addr_check: 1 inside a FilterEn range (or when there is none), else 0.
    int check(uint64_t ip) const noexcept;
};

// Instructions in sequence, taken at once (InsnDecoder::next_block): the first one's address, the
// last one's, how many and each one's length.
struct InsnRun {
    uint64_t ip = 0, end_ip = 0;
    uint32_t ninsn = 0;
    const uint8_t* sizes = nullptr;  // ninsn lengths, valid until the decoder's next call
    InsnClass end_class = InsnClass::error;
    bool end_direct = false;  // the last instruction is a direct branch
    ExecMode mode = em_unknown;
    bool speculative = false;
    // The block cache's run it is (index + 1, for BlockCache::at), valid as sizes is; 0 when it
    // is none (one instruction taken while an event was pending).
    uint32_t cached = 0;
};

// run as the one instruction insn (run.sizes points into insn, which must outlive its use).
void run_of_insn(InsnRun& run, const Insn& insn) noexcept;

// Where the time moved in a path of InsnDecoder::next_path_timed: after its first runs runs, to tsc.
struct TimeMark {
    uint32_t runs;
    uint64_t tsc;
};

// Runs taken at once (InsnDecoder::next_path): the block cache's runs (indexes for
// BlockCache::at), or when there are none, one run as next_block gives it.
struct InsnPath {
    uint64_t ninsn = 0;
    uint32_t nruns = 0;
    // Of the runs, those whose last instruction ends a block as ptxed counts them without
    // --block:end-on-*: every one but those ended by a direct jump or call. With the last run's
    // own, a consumer counts the path's blocks without a loop over its runs.
    uint32_t ends = 0;
    const uint32_t* runs = nullptr;  // valid until the decoder's next call
    // next_path_timed's: where the time moved, in order (as runs, valid until the next call).
    const TimeMark* marks = nullptr;
    uint32_t nmarks = 0;
    ExecMode mode = em_unknown;  // of the runs
    bool speculative = false;
    InsnRun single;  // its ip: where an instruction was looked for when there is none
};

// InsnDecoder's answer for a return whose address is under the open return stack's known
// entries (not a libipt error code).
constexpr int kNeedsStack = -0x7ff0;

class InsnDecoder {
  public:
    InsnDecoder(const Config& config, const Image& image, const AddrFilter& filter = {});

    int sync_forward() noexcept;
    // Synchronizes at the PSB at offset (ipt flow -j: a part from its PSB).
    int sync_set(uint64_t offset) noexcept;
    // After an error (ptxed's --resync-on-error): on from the next IP the trace gives (an event's,
    // or an indirect branch's, TNT bits before it dropped) instead of the next PSB.
    int resync() noexcept;
    // The next instruction; on error insn holds what was decoded (iclass error when nothing).
    int next(Insn& insn) noexcept;
    int event(QueryEvent& ev) noexcept;
    // Like next(), several instructions at once: those up to the next one the trace decides
    // (from the block cache), or one where an event is pending. The same instructions, events
    // and statuses as calls of next() give, in the same order; on error the run holds the
    // instructions before it and the one next() would have returned with it.
    int next_block(InsnRun& run) noexcept;
    // Like next_block, on through conditional branches whose TNT bits are at hand (without a
    // query each), direct jumps and direct calls: up to kMaxWalk runs of the block cache.
    int next_path(InsnPath& path) noexcept;
    // Like next_path, with the time (time()) each run ends at: path.marks says after which
    // runs a query moved it (`ipt calls --time`).
    int next_path_timed(InsnPath& path) noexcept;
    const BlockCache& block_cache() const noexcept { return cache_; }
    // libipt's enable_tick_events: a tick event after a branch query that moved the time (past
    // the last event's). Only next() (one instruction at a time) gives them.
    void set_tick_events(bool on) noexcept { tick_events_ = on; }
    // The time the last query reported (libipt's pt_insn_time without the lost counts).
    int time(uint64_t& tsc) const noexcept { return query_.time(tsc, nullptr, nullptr); }
    int get_offset(uint64_t& offset) const noexcept { return query_.get_offset(offset); }
    // At or past get_offset's, cheaply (QueryCore::read_offset): a bound for checks that rarely
    // need the offset itself.
    uint64_t read_offset() const noexcept { return query_.read_offset(); }
    // The trace offset ptxed reports a decode error at: libipt master's (see
    // QueryCore::master_offset) with Config::packets full, else get_offset's.
    int error_offset(uint64_t& offset) const noexcept;
    int get_sync_offset(uint64_t& offset) const noexcept { return query_.get_sync_offset(offset); }

    // ipt flow -j: the return stack, opened after a part's first sync. With it open, a return
    // compressed (its TNT bit read) that needs an entry under those it knows stops next(),
    // next_block(), next_path() or event() with kNeedsStack (the return not yet followed);
    // resume() pops it and goes on once the entries are assigned (RetStack::assign_below).
    RetStack& retstack() noexcept { return retstack_; }
    const RetStack& retstack() const noexcept { return retstack_; }
    int resume() noexcept;

  private:
    friend struct FlowState;  // ipt flow -j compares decoders' states
    void reset() noexcept;
    int start(int status) noexcept;
    int status_flags(int flags) const noexcept {
        if (!enabled_) flags |= pts_ip_suppressed;
        // The end of the trace waits until the events are processed.
        if ((status_ & pts_eos) && !process_event_) flags |= pts_eos;
        return flags;
    }
    // Where events bind (insn_events.cpp).
    int event_pending() noexcept;
    int check_ip_event(const Insn* insn, const DecodedInsn* iext) noexcept;
    int binds_at_ip(const Insn* insn, const DecodedInsn* iext) noexcept;
    int apply_event(QueryEvent& ev) noexcept;
    int check_insn_event(const Insn& insn, const DecodedInsn& iext) noexcept;
    int at_disabled_event(const Insn& insn, const DecodedInsn& iext) const noexcept;
    int at_skl014(const Insn& insn, const DecodedInsn& iext) const noexcept;
    int postpone(const Insn& insn, const DecodedInsn& iext) noexcept;
    int proceed(const Insn& insn, const DecodedInsn& iext) noexcept;
    int proceed_postponed() noexcept;
    int tick(uint64_t ip) noexcept;
    int resync_step() noexcept;
    int resync_at_event() noexcept;
    int postpone_tsx(const Insn* insn, const DecodedInsn* iext) noexcept;
    int handle_erratum_bdm64(const Insn& insn, const DecodedInsn& iext) noexcept;
    int handle_erratum_skd022() noexcept;
    int decode(Insn& insn, DecodedInsn& iext) const noexcept;
    // The run at ip_, remembered as run index's successor in slot: its index, or 0 (nothing
    // decodes there, or the cache would start again).
    uint32_t link_next(uint32_t index, int slot) noexcept;
    uint32_t link_hot(uint32_t index, unsigned slot) noexcept;
    // next_path's steps (insn_walk.cpp): each takes run w.index when it is of its kind (true).
    // kTimed: next_path_timed's walk.
    struct Walk;
    template <bool kTimed>
    int walk_path(InsnPath& path) noexcept;
    bool walk_direct(Walk& w, const HotRun& h) noexcept;
    bool walk_return(Walk& w, const HotRun& h) noexcept;
    template <bool kTimed>
    bool walk_refill(Walk& w, const HotRun& h) noexcept;
    template <bool kTimed>
    void walk_cold(Walk& w) noexcept;
    void walk_skip_bits(Walk& w) noexcept;
    template <bool kTimed>
    void walk_peek(Walk& w) noexcept;
    // Whether the instructions from begin reach end without a branch the trace decides (at most
    // steps of them): 1, else 0.
    int range_is_contiguous(uint64_t begin, uint64_t end, int steps) const noexcept;

    QueryDecoder query_;
    const Image& image_;
    AddrFilter filter_;
    Errata errata_;
    bool master_ = false;  // libipt master's flow (Config::packets full), else 2.0.5's
    ExecMode mode_ = em_unknown;
    uint64_t ip_ = 0;
    int status_ = 0;
    bool enabled_ = false;
    bool speculative_ = false;
    bool process_event_ = false;
    bool process_insn_ = false;
    bool bound_paging_ = false, bound_vmcs_ = false, bound_ptwrite_ = false, bound_return_ = false;
    bool tick_events_ = false;
    bool resyncing_ = false;      // resync() looks for the next IP the trace gives
    bool disable_first_ = false;  // event() gives a disable before event_ (see resync_at_event)
    int deferred_ = 0;            // libipt master: an error the next step reports (event_pending)
    // libipt master's TRIG: the instructions since the last IP the trace gave (a branch query, an
    // event with its IP, a TRIG), counted while events are pending (next() one at a time).
    uint32_t since_anchor_ = 0;
    bool anchor_event_ = false;
    QueryEvent event_;
    uint64_t event_offset_ = 0;  // event_'s offset for error_offset
    Insn insn_;
    DecodedInsn iext_;
    RetStack retstack_;
    BlockCache cache_;
    // The run just taken and which of its successors follows (see CachedRun::next).
    uint32_t link_run_ = 0, link_generation_ = 0;
    int link_slot_ = 0;
    Insn one_;  // next_block's run of one instruction
    // The return that stopped with kNeedsStack.
    Insn ret_;
    DecodedInsn ret_iext_;

  public:
    static constexpr unsigned kMaxWalk = 256;

  private:
    uint32_t walk_[kMaxWalk] = {};
    TimeMark marks_[kMaxWalk] = {};  // at most one a run
};

}  // namespace ringscope::ipt
