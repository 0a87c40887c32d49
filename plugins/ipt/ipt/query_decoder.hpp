// The query decoder (libipt's pt_query_decoder, as of libipt 2.0.5): answers "was this branch
// taken", "where did this indirect branch go" and "what happened here" in trace order, with the
// same return values, status bits and event order as libipt. Three libipt 2.0.5 defects are not
// copied: sync_backward returns status bits, it visits the PSBs sync_forward visits (in reverse
// order, errors included), and every sync search terminates, in time linear in the stream.
// Errata workarounds of the query layer (BDM70, SKD007, and for overflows SKD010, APL11, APL12 in
// query_errata.cpp) follow 2.0.5. With Config::packets full (the default) it follows libipt
// master where the two differ: TRIG events, Event Trace's CFE and EVD events (an EVD's details
// wait for their CFE), MODE.EXEC's events only for what changed (and the interrupt flag's with
// Config::iflags_events), bound to the FUP or TIP that comes first, MWAIT and PWRE bound to the EXSTOP
// (MWAIT, EXSTOP, PWRE in that order; what still waits at a PWRX or an overflow released there); with
// libipt_2_0_5, 2.0.5's events (CFE, EVD, TRIG unknown opcodes).
#pragma once

#include <cstdint>
#include <memory>

#include "ipt/config.hpp"
#include "ipt/event_queue.hpp"
#include "ipt/last_ip.hpp"
#include "ipt/packet_reader.hpp"
#include "ipt/query_event.hpp"
#include "ipt/timing.hpp"
#include "ipt/tnt_cache.hpp"

namespace ringscope::ipt {

// Whether the first packet from pos that is not padding, timing or MNT (with skip_state, not
// PSBEND, PIP, MODE or VMCS either) is a want: 1, else 0 (also at the end), or an error.
int first_packet_is(const Config& config, const uint8_t* pos, PacketType want, bool skip_state) noexcept;

// The decoder's state and every path but the answers from cached TNT bits, which QueryDecoder
// gives inline. Used through QueryDecoder.
class QueryCore {
  public:
    explicit QueryCore(const Config& config) noexcept;

    const Config& config() const noexcept { return config_; }

    // On success a set of PtStatus bits; *ip gets the IP where tracing starts (pts_ip_suppressed
    // when there is none). ip may be null.
    int sync_forward(uint64_t* ip) noexcept;
    int sync_backward(uint64_t* ip) noexcept;
    int sync_set(uint64_t* ip, uint64_t offset) noexcept;
    int get_offset(uint64_t& offset) const noexcept;
    int get_sync_offset(uint64_t& offset) const noexcept;
    // Where the decoder has read to: at or past get_offset's (which is before a cached run's TNT
    // packets when their bits are being answered), without its search; 0 before a sync.
    uint64_t read_offset() const noexcept { return pos_ ? static_cast<uint64_t>(pos_ - config_.begin) : 0; }
    // The bytes the sync calls have searched and decoded so far, for tests that bound their work.
    uint64_t sync_work() const noexcept { return sync_work_; }

    // With the cache empty, caches the next TNT packet (or a run of them) first.
    int cond_branch(int& taken) noexcept;
    int indirect_branch(uint64_t& ip) noexcept;
    int event(QueryEvent& event) noexcept;
    int time(uint64_t& tsc, uint32_t* lost_mtc, uint32_t* lost_cyc) const noexcept {
        return query_time().query_tsc(&tsc, lost_mtc, lost_cyc);
    }
    int core_bus_ratio(uint32_t& cbr) const noexcept { return last_time_.query_cbr(&cbr); }

    // libipt master's trace offset at an error (pt_evt_get_offset; query_offset.cpp). Its flow
    // decoders hold the next event, TNT or TIP they have not taken yet, and its event decoder
    // stands on the packet that one binds to (a FUP, TIP, TIP.PGE, PSBEND), else past the packet
    // that made it alone (a TNT, a PTW, ...). master_offset: with nothing taken from here yet;
    // last_event_offset: for the event the last event() returned.
    int master_offset(uint64_t& offset) const noexcept;
    uint64_t last_event_offset() const noexcept { return last_event_offset_; }
    // libipt master: an error in reading ahead after a query, which the next call returns.
    bool deferred() const noexcept { return deferred_ != 0; }

  private:
    enum Flag : uint8_t {
        pdff_unknown = 1 << 0,
        pdff_pad = 1 << 1,
        pdff_psbend = 1 << 2,
        pdff_tip = 1 << 3,
        pdff_tnt = 1 << 4,
        pdff_fup = 1 << 5,
        pdff_event = 1 << 6,
        pdff_timing = 1 << 7,
    };

    static const uint8_t kFlags[32];
    // decode_psb's answer at probe_stop_: no libipt error code.
    static constexpr int kProbeStopped = -0x7fff;
    uint8_t next_flags() const noexcept { return have_next_ ? kFlags[static_cast<uint8_t>(next_)] : 0; }
    bool will_event() const noexcept {
        if (!have_next_) return evq_.pending(evb_now);
        // An event packet, or the packet a queued event binds to: one test, no branch on the
        // packet's kind (a random mix of TNT and TIP mispredicts one).
        unsigned bound = (evq_.pending(evb_psbend) ? unsigned{pdff_psbend} : 0u) |
                         (evq_.pending(evb_tip) ? unsigned{pdff_tip} : 0u) |
                         (evq_.pending(evb_fup) ? unsigned{pdff_fup} : 0u) |
                         (evq_.pending(evb_now) ? 0xffu : 0u);
        return (kFlags[static_cast<uint8_t>(next_)] & (pdff_event | bound)) != 0;
    }

    void reset() noexcept;
    // What start() at a PSB leads to, as much as sync backward needs: the status and where the
    // decoder stopped.
    struct Outcome {
        int status;
        const uint8_t* after;
    };
    // start() at psb; when its segment decodes the PSB+ at stop in line (a later PSB, whose start()
    // led to at_stop), it stops after it and answers at_stop: decoding goes on from there as
    // start() there did. This keeps a backward walk over back-to-back PSB+s linear.
    Outcome probe(const uint8_t* psb, const uint8_t* stop, const Outcome& at_stop) noexcept;
    // Whether sync forward, after start() at psb led to o, finds next (the first PSB above psb).
    bool forward_lands_on(const uint8_t* psb, const Outcome& o, const uint8_t* next) noexcept;
    int backward_eos() noexcept;
    // The kind of the next packet. Inline for the common case, the opcode bytes in the buffer;
    // the query layer knows libipt 2.0.5's packets only (see the constructor).
    int fetch() noexcept {
        const uint8_t* pos = pos_;
        if (pos && pos >= config_.begin && config_.end - pos >= 3) [[likely]] {
            next_ = peek_kind(pos);
            have_next_ = true;
            return 0;
        }
        return fetch_slow();
    }
    int fetch_slow() noexcept;
    // The kind of the packet at pos, 3 bytes of which are in the buffer.
    PacketKind peek_kind(const uint8_t* pos) const noexcept {
        PacketKind kind = (*opc_)[pos[0]];
        if (pos[0] == kOpcExt) [[unlikely]] {
            kind = (*ext_)[pos[1]];
            if (kind == PacketKind::mnt && pos[2] != 0x88) kind = PacketKind::bad;
        }
        return kind;
    }
    bool will_eos() const noexcept;
    // Events are only signalled once the user has used up the cached TNT bits.
    int status_flags() const noexcept { return tnt_.empty() ? flags_when_empty() : 0; }
    int flags_when_empty() const noexcept {
        int flags = will_event() ? pts_event_pending : 0;
        // A deferred error (read_ahead_after_query) is taken as the next event is.
        if (!have_next_) flags |= deferred_ ? pts_event_pending : will_eos() ? pts_eos : 0;
        return flags;
    }
    int provoke_fetch_error() const noexcept;
    int read_ahead() noexcept;
    // Synchronizes at the PSB at pos; remembers where that led (sync backward starts below it).
    int start(const uint8_t* pos, uint64_t* addr) noexcept {
        int status = start_at(pos, addr);
        sync_work_ += static_cast<uint64_t>(pos_ - pos);
        after_sync_ = libipt_pos();
        sync_status_ = status;
        return status;
    }
    int start_at(const uint8_t* pos, uint64_t* addr) noexcept;
    int cache_tnt() noexcept;
    // The TNT packet of that kind at pos when it can be read without the general decode: its
    // size, else 0.
    int read_tnt_fast(PacketTnt& tnt, PacketKind kind, const uint8_t* pos) const noexcept {
        if (kind == PacketKind::tnt_8) {
            tnt.payload = pos[0] >> 1;
            tnt.bit_size = static_cast<uint8_t>(63 - __builtin_clzll(tnt.payload | 1));
            tnt.payload &= ~(1ull << tnt.bit_size);
            return 1;
        }
        if (kind != PacketKind::tnt_64 || config_.end - pos < 8) return 0;
        // A TNT-64 without a branch is a bad packet: the general decode reports it.
        return detail::tnt_fill(tnt, detail::read_value(pos + 2, 6, config_.end)) < 0 ? 0 : 8;
    }
    // query_tnt_run.cpp: the run, and the timing packets between its TNTs.
    void cache_tnt_run() noexcept;
    // Past the PAD, MTC and CYC packets from pos (pos when there are none); nullptr when they
    // run too close to the end of the buffer or on for more than a RunEntry::gap.
    const uint8_t* skip_timing(const uint8_t* pos) const noexcept {
        if (config_.end - pos < 16) return nullptr;
        const PacketKind kind = peek_kind(pos);
        const bool timing = kind == PacketKind::pad || kind == PacketKind::mtc || kind == PacketKind::cyc;
        return timing ? skip_timing_slow(pos) : pos;
    }
    const uint8_t* skip_timing_slow(const uint8_t* pos) const noexcept;
    // Decodes the timing packets from pos_ to to, behind the run's packet n (whose time and
    // calibration it keeps); false, with nothing changed, when one fails.
    bool cross_timing(int n, const uint8_t* to) noexcept;
    // Takes the run's last packet (n of them after the first) out again, with the timing
    // packets before it.
    void drop_run_packet(int& n, unsigned& added, unsigned& used) noexcept;
    // The time a query reports: libipt's for the TNT packet being answered.
    const TimeState& query_time() const noexcept {
        if (!run_timed_ || !run_size_) return last_time_;
        const int k = tnt_run_packet();
        return k < 0 ? last_time_ : run_time_[k];
    }
    // Which TNT packet of the run, other than the last, the last answered bit came from; -1 when
    // from the last (or there is no run).
    int tnt_run_packet() const noexcept {
        for (int k = 0; k < run_size_; ++k)
            if (tnt_.index >= 1ull << (run_below(k) - 1)) return k;
        return -1;
    }
    // Where libipt would be: before the TNT packet after the one whose bits are being answered.
    const uint8_t* libipt_pos() const noexcept {
        int k = tnt_run_packet();
        return k < 0 ? pos_ : run_[k].next;
    }
    unsigned run_below(int k) const noexcept { return run_bits_ - run_[k].added_before; }
    // How many more cached bits are answered with the TSC a query reports now: those up to the
    // run's first packet after it with another (all, 64, when none has).
    unsigned bits_at_this_time() const noexcept;
    void leave_tnt_run() noexcept;
    // After a query's packet: the time the query reports, then the read-ahead to the next query's
    // packet (pte_eos is not an error here).
    int read_ahead_after_query() noexcept;

    int decode(PacketKind kind) noexcept;
    int header(PacketKind kind) noexcept;
    // The time and IP an event reports: its time when there is one, its IP or that it has none.
    int event_time(QueryEvent& ev) const noexcept {
        int status = time_.query_tsc(&ev.tsc, &ev.lost_mtc, &ev.lost_cyc);
        if (status < 0) return status == -pte_no_time ? 0 : status;
        ev.has_tsc = true;
        return 0;
    }
    int event_ip(uint64_t& ip, QueryEvent& ev) const noexcept {
        int status = ip_.query(&ip);
        if (status >= 0) return 0;
        if (status != -pte_noip && status != -pte_ip_suppressed) return status;
        ev.ip_suppressed = true;
        return 0;
    }
    int read(Packet& packet, PacketKind kind) const noexcept {
        return read_packet_kind(packet, kind, pos_, config_);
    }

    int decode_psb() noexcept;
    int read_psb_header() noexcept;
    int decode_ip(Packet& packet) noexcept;
    int decode_tip() noexcept;
    int decode_tnt(PacketKind kind) noexcept;
    int decode_tip_pge() noexcept;
    int decode_tip_pgd() noexcept;
    int decode_fup() noexcept;
    int bind_to_fup(QueryEvent& ev) noexcept;
    int start_async_branch() noexcept;
    int header_fup() noexcept;
    int decode_pip() noexcept;
    int header_pip() noexcept;
    int decode_ovf() noexcept;
    int decode_mode() noexcept;
    int header_mode() noexcept;
    int decode_psbend() noexcept;
    int decode_tsc(bool in_header) noexcept;
    int decode_cbr(bool in_header) noexcept;
    int decode_tma() noexcept;
    int decode_mtc() noexcept;
    int decode_cyc() noexcept;
    int decode_stop() noexcept;
    int decode_vmcs(bool in_header) noexcept;
    int decode_mnt(bool in_header) noexcept;
    int decode_exstop() noexcept;
    int decode_mwait() noexcept;
    int decode_pwre() noexcept;
    int decode_pwrx() noexcept;
    int decode_ptw() noexcept;
    int decode_trig() noexcept;
    int decode_cfe() noexcept;
    // libipt master's MODE.EXEC (after: where the packet ends): an exec mode event when the mode
    // changed, an iflags event when the flag did (Config::iflags_events), bound to the FUP (which
    // it takes, even with no event) or TIP that comes first.
    int decode_mode_exec(const PacketMode& m, const uint8_t* after) noexcept;
    int header_mode_exec(const PacketMode& m) noexcept;
    // Whether the MODE packet at pos_ is a MODE.EXEC that would change nothing.
    bool mode_exec_is_silent() const noexcept;
    int decode_evd() noexcept;
    // libipt master: moves what waits at binding from into to (ip suppressed unless keep_ip).
    int move_events(Binding from, Binding to, bool keep_ip) noexcept;
    int flush_power_events() noexcept;
    // A status event (CBR, MNT): queued until PSBEND inside PSB+, else standalone and published.
    // nullptr when the queue is full.
    QueryEvent* status_event(bool in_header) noexcept;
    // An event bound to the next FUP when the packet says an IP follows, else standalone and
    // published without an IP. nullptr when the queue is full.
    QueryEvent* fup_or_standalone(bool bound) noexcept;
    int process_pending_psb_events() noexcept;
    int event_ovf_disabled() noexcept;
    // The overflow errata (query_errata.cpp): 0 when handled (SKD010: 1), a positive value when
    // the erratum does not apply, or an error.
    int handle_skd010() noexcept;
    int handle_apl11() noexcept;
    int handle_apl12(int offset) noexcept;
    int skd010_recover(const PacketIp& packet, const TimeCal& tcal, const TimeState& time,
                       uint64_t offset) noexcept;
    int skd010_recover_disabled(const TimeCal& tcal, const TimeState& time, uint64_t offset) noexcept;
    int find_ovf_fup() const noexcept;
    int check_erratum_bdm70(const uint8_t* pos) const noexcept;
    int apply_cyc(uint64_t cyc) noexcept;
    // Where libipt master's event decoder stands after making ev from the packet at event_at_.
    uint64_t event_offset(const QueryEvent& ev) const noexcept;

    friend class QueryDecoder;
    friend struct FlowState;

    Config config_;
    // libipt master's packets and events (Config::packets full): TRIG, CFE, EVD, and MWAIT and PWRE
    // bound to the EXSTOP; else libipt 2.0.5's.
    bool master_ = false;
    const detail::Kinds* opc_ = &detail::kOpcOld;
    const detail::Kinds* ext_ = &detail::kExtOld;
    // libipt master: the execution mode and interrupt flag known so far, and a FUP taken by a
    // MODE.EXEC without events.
    bool mode_exec_valid_ = false, iflag_ = false, fup_taken_ = false;
    uint8_t exec_mode_ = 0;
    const uint8_t* pos_ = nullptr;
    const uint8_t* sync_ = nullptr;
    // Where the last start() left the decoder and what it returned: a decoder still there has not
    // moved on since it synchronized at sync_.
    const uint8_t* after_sync_ = nullptr;
    int sync_status_ = 0;
    // Set while probing (see probe()): decode_psb stops after this PSB's PSB+.
    const uint8_t* probe_stop_ = nullptr;
    uint64_t sync_work_ = 0;
    PacketKind next_ = PacketKind::bad;
    bool have_next_ = false;
    LastIp ip_;
    TntCache tnt_;
    TimeState time_, last_time_;
    TimeCal tcal_;
    EventQueue evq_;
    QueryEvent* event_ = nullptr;  // the event the last decode published
    bool enabled_ = false;
    bool consume_packet_ = false;
    // TNT packets cached as one run (cache_tnt_run), all but the last: where the packet after
    // each starts, and how many bits of the run's later packets the cache took before that one
    // (run_below: the bits below each packet's own, kept so to need no second pass), and the
    // bytes of timing packets between the two.
    struct RunEntry {
        const uint8_t* next;
        uint8_t added_before;
        uint8_t gap;
    };
    static constexpr uint8_t kMaxRun = 16;
    RunEntry run_[kMaxRun - 1] = {};
    uint8_t run_size_ = 0;
    uint8_t run_bits_ = 0;  // the bits of the run's packets after the first
    // With timing packets between the run's TNTs (run_timed_): the time and calibration when
    // libipt would have cached each of the run's packets, before the timing packets after it.
    bool run_timed_ = false;
    TimeState run_time_[kMaxRun];
    TimeCal run_tcal_[kMaxRun];
    // For master_offset: where the last cached TNT packet ends, the packet whose decode made the
    // last event, and that event's offset.
    const uint8_t* tnt_end_ = nullptr;
    const uint8_t* event_at_ = nullptr;
    PacketKind event_kind_ = PacketKind::bad;
    uint64_t last_event_offset_ = 0;
    int deferred_ = 0;                           // see deferred()
    const uint8_t* header_failed_at_ = nullptr;  // the packet a PSB+ failed at
};

// The query decoder. The cached TNT bits, the status once they are used up and the time a query
// reports are kept here, by value, and answered inline; everything else is QueryCore's, behind a
// pointer. A decoder that the caller keeps in a local then never has its address taken, so the
// compiler keeps the bits in registers: with them in the object that the out-of-line paths
// receive, each cond_branch was a load, shift and store of the same word, a chain through memory
// at every branch (about 5 cycles a query here).
class QueryDecoder {
  public:
    explicit QueryDecoder(const Config& config) : core_(std::make_unique<QueryCore>(config)) {}

    const Config& config() const noexcept { return core_->config(); }

    // See QueryCore.
    int sync_forward(uint64_t* ip) noexcept {
        return call([&](QueryCore& c) { return c.sync_forward(ip); });
    }
    int sync_backward(uint64_t* ip) noexcept {
        return call([&](QueryCore& c) { return c.sync_backward(ip); });
    }
    int sync_set(uint64_t* ip, uint64_t offset) noexcept {
        return call([&](QueryCore& c) { return c.sync_set(ip, offset); });
    }
    int get_offset(uint64_t& offset) const noexcept {
        push();
        return core_->get_offset(offset);
    }
    int get_sync_offset(uint64_t& offset) const noexcept { return core_->get_sync_offset(offset); }
    uint64_t read_offset() const noexcept { return core_->read_offset(); }
    // After a query that failed on the trace itself: where that failed, as libipt master's too.
    int master_offset(uint64_t& offset) const noexcept {
        push();
        return failed_ ? core_->get_offset(offset) : core_->master_offset(offset);
    }
    uint64_t last_event_offset() const noexcept { return core_->last_event_offset(); }
    bool deferred() const noexcept { return core_->deferred(); }
    uint64_t sync_work() const noexcept { return core_->sync_work(); }

    int cond_branch(int& taken) noexcept {
        // Bits left after this one: the status is 0 (events wait until the cache is used up).
        uint64_t index = index_;
        if (index > 1) [[likely]] {
            taken = (tnt_ & index) != 0;
            index_ = index >> 1;
            return 0;
        }
        // The last bit: the cache is used up, so the status says what comes next.
        if (index) {
            taken = static_cast<int>(tnt_ & 1);
            index_ = 0;
            return empty_status_;
        }
        return call([&](QueryCore& c) { return c.cond_branch(taken); });
    }
    // The cached bits cond_branch answers without reading the trace, all but the last (whose
    // answer carries the status of what follows): how many (up to max) and their values, the
    // oldest the highest (max below 64). skip_bits(n) answers n of them at once (n no more than
    // peek_bits gave).
    unsigned peek_bits(unsigned max, uint64_t& bits) const noexcept {
        if (index_ < 2) return 0;
        const unsigned left = static_cast<unsigned>(__builtin_ctzll(index_));
        const unsigned n = left < max ? left : max;
        bits = (tnt_ >> (left + 1 - n)) & ((uint64_t{1} << n) - 1);
        return n;
    }
    void skip_bits(unsigned n) noexcept { index_ >>= n; }
    // peek_bits's, only those whose answers leave time() as it is now.
    unsigned peek_bits_at_this_time(unsigned max, uint64_t& bits) const noexcept {
        if (timed_) {
            push();
            const unsigned now = core_->bits_at_this_time();
            if (now < max) max = now;
            if (!max) return 0;
        }
        return peek_bits(max, bits);
    }
    int indirect_branch(uint64_t& ip) noexcept {
        return call([&](QueryCore& c) { return c.indirect_branch(ip); });
    }
    int event(QueryEvent& event) noexcept {
        return call([&](QueryCore& c) { return c.event(event); });
    }
    int time(uint64_t& tsc, uint32_t* lost_mtc, uint32_t* lost_cyc) const noexcept {
        if (lost_mtc || lost_cyc || timed_) {
            push();
            return core_->time(tsc, lost_mtc, lost_cyc);
        }
        tsc = tsc_;
        return have_tsc_ ? 0 : -pte_no_time;
    }
    int core_bus_ratio(uint32_t& cbr) const noexcept { return core_->core_bus_ratio(cbr); }

  private:
    friend struct FlowState;
    // QueryCore works on its own copy of the bits: which of them are left goes there before each
    // of its calls (the bits themselves only change there), and what it leaves comes back after it.
    void push() const noexcept { core_->tnt_.index = index_; }
    template <class F>
    int call(F&& f) noexcept {
        push();
        int status = f(*core_);
        failed_ = status < 0 && status != -pte_bad_query;
        const QueryCore& c = *core_;
        tnt_ = c.tnt_.tnt;
        index_ = c.tnt_.index;
        tsc_ = c.last_time_.tsc;
        have_tsc_ = c.last_time_.have_tsc;
        // A run across timing packets: the time depends on the bit answered.
        timed_ = c.run_timed_ && c.run_size_;
        // What the last cached bit's query returns: nothing it depends on changes until the
        // next call into QueryCore.
        empty_status_ = index_ ? c.flags_when_empty() : 0;
        return status;
    }

    std::unique_ptr<QueryCore> core_;
    uint64_t tnt_ = 0;
    uint64_t index_ = 0;  // the bit to answer next; 0 when empty
    uint64_t tsc_ = 0;    // the time queries report
    bool have_tsc_ = false;
    bool timed_ = false;
    int empty_status_ = 0;
    bool failed_ = false;  // the last call into QueryCore failed, and not as a wrong query
};

}  // namespace ringscope::ipt
