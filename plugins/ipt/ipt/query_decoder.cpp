#include "ipt/query_decoder.hpp"

#include <array>
#include <climits>
#include <cstddef>
#include <cstring>

#include "ipt/errors.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/psb_search.hpp"

namespace ringscope::ipt {
namespace {

// How each packet kind takes part in queries (libipt 2.0's decoder function flags).
constexpr uint8_t flags_of(PacketKind k) {
    constexpr uint8_t unknown = 1 << 0, pad = 1 << 1, psbend = 1 << 2, tip = 1 << 3, tnt = 1 << 4,
                      fup = 1 << 5, event = 1 << 6, timing = 1 << 7;
    switch (k) {
        case PacketKind::bad:
            return unknown;
        case PacketKind::pad:
            return pad;
        case PacketKind::psb:
            return 0;
        case PacketKind::tip:
            return tip;
        case PacketKind::tnt_8:
        case PacketKind::tnt_64:
            return tnt;
        case PacketKind::fup:
            return fup;
        case PacketKind::ovf:
            return psbend | event;
        case PacketKind::psbend:
            return psbend;
        case PacketKind::tsc:
        case PacketKind::tma:
        case PacketKind::mtc:
        case PacketKind::cyc:
            return timing;
        case PacketKind::cbr:
            return timing | event;
        default:
            return event;
    }
}

constexpr std::array<uint8_t, 32> make_flags() {
    std::array<uint8_t, 32> t{};
    for (int i = 0; i <= static_cast<int>(PacketKind::trig); ++i)
        t[static_cast<size_t>(i)] = flags_of(static_cast<PacketKind>(i));
    return t;
}
constexpr std::array<uint8_t, 32> kFlagTable = make_flags();

// Errors from configuration problems only make timing imprecise: libipt ignores them.
inline int timing_error(int err) noexcept {
    return (err < 0 && err != -pte_bad_config) ? err : 0;
}

}  // namespace

const uint8_t QueryCore::kFlags[32] = {
    kFlagTable[0],  kFlagTable[1],  kFlagTable[2],  kFlagTable[3],  kFlagTable[4],  kFlagTable[5],
    kFlagTable[6],  kFlagTable[7],  kFlagTable[8],  kFlagTable[9],  kFlagTable[10], kFlagTable[11],
    kFlagTable[12], kFlagTable[13], kFlagTable[14], kFlagTable[15], kFlagTable[16], kFlagTable[17],
    kFlagTable[18], kFlagTable[19], kFlagTable[20], kFlagTable[21], kFlagTable[22], kFlagTable[23],
    kFlagTable[24], kFlagTable[25], kFlagTable[26], kFlagTable[27], kFlagTable[28], kFlagTable[29],
    kFlagTable[30], kFlagTable[31]};

QueryCore::QueryCore(const Config& config) noexcept : config_(config) {
    // libipt 2.0.5 does not know CFE, EVD and TRIG: they are unknown opcodes to its query layer.
    master_ = config.packets == PacketSet::full;
    if (master_) {
        opc_ = &detail::kOpcFull;
        ext_ = &detail::kExtFull;
    }
    reset();
}

void QueryCore::reset() noexcept {
    deferred_ = 0;
    header_failed_at_ = nullptr;
    enabled_ = false;
    mode_exec_valid_ = fup_taken_ = false;
    consume_packet_ = false;
    event_ = nullptr;
    ip_.init();
    tnt_.init();
    time_.init();
    last_time_.init();
    tcal_.init();
    evq_.init();
    run_size_ = 0;
}

int QueryCore::fetch_slow() noexcept {
    have_next_ = false;
    int status = fetch_kind(next_, pos_, config_);
    if (status < 0) return status;
    have_next_ = true;
    return 0;
}

bool QueryCore::will_eos() const noexcept {
    if (have_next_) return false;
    // No next packet: either the trace ended or the fetch failed; fetch again to tell.
    PacketKind kind;
    return fetch_kind(kind, pos_, config_) == -pte_eos;
}

int QueryCore::provoke_fetch_error() const noexcept {
    if (deferred_) return deferred_;
    PacketKind kind;
    int status = fetch_kind(kind, pos_, config_);
    return status < 0 ? status : -pte_internal;
}

int QueryCore::read_ahead() noexcept {
    for (;;) {
        int status = fetch();
        if (status) return status;
        // The packets of a running trace first, without the general dispatch.
        switch (next_) {
            case PacketKind::tnt_8:
            case PacketKind::tnt_64:
            case PacketKind::tip:
                return 0;
            case PacketKind::pad:
                pos_ += kPadSize;
                continue;
            case PacketKind::mtc:
                status = decode_mtc();
                break;
            case PacketKind::cyc:
                status = decode_cyc();
                break;
            case PacketKind::mode:
                // libipt master: a MODE.EXEC that changes nothing is no event.
                if (master_ && !evq_.pending(evb_now) && mode_exec_is_silent()) {
                    status = decode_mode();
                    break;
                }
                if (will_event()) return 0;
                status = decode(next_);
                break;
            default:
                if (will_event()) return 0;
                status = decode(next_);
                break;
        }
        if (status) {
            // A truncated status packet at the end: move past it and forget the next packet.
            if (status == -pte_eos) {
                pos_ = config_.end;
                have_next_ = false;
            }
            return status;
        }
    }
}

int QueryCore::start_at(const uint8_t* pos, uint64_t* addr) noexcept {
    reset();
    sync_ = pos;
    pos_ = pos;
    int status = fetch();
    if (status) return status;
    if (next_ != PacketKind::psb) return -pte_nosync;
    status = decode(next_);
    if (status < 0) return status;
    // Take the start address before reading ahead: an adjacent PSB+ may change the IP.
    if (addr) {
        if (ip_.query(addr) == 0) addr = nullptr;
    }
    status = read_ahead();
    if (status < 0) return status;
    int flags = status_flags();
    if (ip_.query(addr) < 0 && addr) flags |= pts_ip_suppressed;
    return flags;
}

int QueryCore::sync_forward(uint64_t* ip) noexcept {
    const uint8_t* pos = pos_ ? libipt_pos() : config_.begin;
    const uint8_t* sync = sync_;
    if (pos == sync) pos += kPsbSize;
    int status = ipt::sync_forward(&sync, pos, config_, false);
    sync_work_ += static_cast<uint64_t>((status < 0 ? config_.end : sync + kPsbSize) - pos);
    if (status < 0) return status;
    return start(sync, ip);
}

// Backward visits the PSBs forward visits, in reverse order, errors included (libipt 2.0.5 searches
// from where the decoder stopped, so after a PSB+ that failed past its PSBEND it finds that PSB
// again, and loops forever on back-to-back PSBs cut by the end). Forward goes from each PSB to the
// first PSB above where start() there stopped; it stops at a PSB whose segment runs into the end
// (pte_eos), and passes over PSBs that a segment decodes in line. So a PSB c is visited when its
// segment does not run into the end and the forward step from the PSB below it lands on it.
int QueryCore::sync_backward(uint64_t* ip) noexcept {
    // Below the current PSB; below the current position once queries have moved on from it (as
    // libipt: the PSB of the segment being decoded comes first).
    const uint8_t* from = config_.end;
    const uint8_t* above = nullptr;
    Outcome at_above{0, nullptr};
    if (pos_ && (!sync_ || libipt_pos() != after_sync_)) {
        from = libipt_pos();
    } else if (pos_) {
        from = above = sync_;
        at_above = {sync_status_, after_sync_};
    }
    const uint8_t* c = nullptr;
    if (psb_before(&c, from, config_, &sync_work_) < 0) return backward_eos();
    Outcome at_c = probe(c, above, at_above);
    for (;;) {
        const uint8_t* b = nullptr;
        const bool have_b = psb_before(&b, c, config_, &sync_work_) == 0;
        Outcome at_b{0, nullptr};
        if (have_b) at_b = probe(b, c, at_c);
        if (at_c.status != -pte_eos && (!have_b || forward_lands_on(b, at_b, c))) return start(c, ip);
        if (!have_b) return backward_eos();
        c = b;
        at_c = at_b;
    }
}

QueryCore::Outcome QueryCore::probe(const uint8_t* psb, const uint8_t* stop,
                                    const Outcome& at_stop) noexcept {
    // Where the PSB+ at stop failed on its own, in line it may not (its header can depend on the
    // packets before it): decode on without stopping.
    probe_stop_ = at_stop.status < 0 && at_stop.after == stop ? nullptr : stop;
    int status = start(psb, nullptr);
    probe_stop_ = nullptr;
    // The PSB+ at stop decoded in line: from there on, decoding goes as start() there went.
    if (status == kProbeStopped) return at_stop;
    return {status, after_sync_};
}

bool QueryCore::forward_lands_on(const uint8_t* psb, const Outcome& o, const uint8_t* next) noexcept {
    if (o.status == -pte_eos) return false;
    const uint8_t* from = o.after == psb ? psb + kPsbSize : o.after;
    if (from >= next + kPsbSize) return false;
    // Nothing between psb and next is a PSB: a search that ends with next's run is enough.
    Config upto = config_;
    upto.end = next + kPsbSize;
    const uint8_t* found = nullptr;
    sync_work_ += static_cast<uint64_t>(upto.end - from);
    return ipt::sync_forward(&found, from, upto, false) == 0 && found == next;
}

int QueryCore::backward_eos() noexcept {
    // Before the first PSB: sync backward keeps answering pte_eos, sync forward starts from the
    // beginning.
    reset();
    have_next_ = false;
    sync_ = nullptr;
    pos_ = config_.begin;
    after_sync_ = nullptr;
    return -pte_eos;
}

int QueryCore::sync_set(uint64_t* ip, uint64_t offset) noexcept {
    const uint8_t* sync = nullptr;
    if (static_cast<uint64_t>(config_.end - config_.begin) < offset) return -pte_eos;
    int status = ipt::sync_set(&sync, config_.begin + offset, config_);
    if (status < 0) return status;
    return start(sync, ip);
}

int QueryCore::get_offset(uint64_t& offset) const noexcept {
    if (!pos_) return -pte_nosync;
    offset = static_cast<uint64_t>(libipt_pos() - config_.begin);
    return 0;
}

int QueryCore::get_sync_offset(uint64_t& offset) const noexcept {
    if (!sync_) return -pte_nosync;
    offset = static_cast<uint64_t>(sync_ - config_.begin);
    return 0;
}

int QueryCore::read_ahead_after_query() noexcept {
    last_time_ = time_;
    int status = read_ahead();
    if (status >= 0 || status == -pte_eos) return 0;
    // libipt master's flow decoders fetch the next event after each query and keep an error
    // there for their next step: the query stands, the error comes with the next call, from
    // where its event decoder stopped (2.0.5 goes back to the PSB). Done here only for a PSB+
    // whose MODE.EXEC contradicts the mode before it, which 2.0.5 does not check: elsewhere
    // `ipt calls` and `ipt profile` stay libipt 2.0.5's on broken streams.
    if (!master_ || status != -pte_bad_status_update || !header_failed_at_) return status;
    deferred_ = status;
    pos_ = header_failed_at_;
    have_next_ = false;
    return 0;
}

int QueryCore::cache_tnt() noexcept {
    for (;;) {
        if (!have_next_) return provoke_fetch_error();
        if (will_event()) return -pte_bad_query;
        uint8_t f = next_flags();
        if (f & pdff_tip) return -pte_bad_query;  // a TIP outside an event
        event_ = nullptr;
        int status = decode(next_);
        if (status) return status;
        if (event_) return -pte_event_ignored;
        if (f & pdff_tnt) break;
        status = read_ahead();
        if (status) return status;
    }
    return read_ahead_after_query();
}

int QueryCore::cond_branch(int& taken) noexcept {
    if (tnt_.empty()) {
        // The common cases first: a TNT (no event binds to one) is cached here, and a TIP is
        // always the wrong query (for the TIP itself or for the event bound to it).
        run_size_ = 0;
        PacketTnt tnt;
        int size = have_next_ ? read_tnt_fast(tnt, next_, pos_) : 0;
        if (size) {
            event_ = nullptr;
            int status = tnt_.add(tnt);
            if (status < 0) return status;
            pos_ += size;
            cache_tnt_run();
            tnt_end_ = pos_;
            status = read_ahead_after_query();
            if (status < 0) return status;
        } else if (have_next_ && next_ == PacketKind::tip) {
            return -pte_bad_query;
        } else {
            int status = cache_tnt();
            if (status < 0) return status;
        }
    }
    int q = tnt_.query();
    if (q < 0) return q;
    taken = q;
    return status_flags();
}

int QueryCore::indirect_branch(uint64_t& addr) noexcept {
    if (run_size_) leave_tnt_run();
    int flags = 0;
    // The common case: a TIP with no event bound to it, a valid IP compression and its bytes in
    // the buffer; it cannot fail.
    bool fast = have_next_ && next_ == PacketKind::tip && !evq_.pending(evb_tip) && config_.end - pos_ >= 9;
    unsigned ipc = fast ? pos_[0] >> 5 : 0;
    int n = fast ? detail::kIpSize[ipc] : -1;
    if (n >= 0) {
        if ((LastIp::kMaskedIpcs >> ipc) & 1) [[likely]] {
            uint64_t raw;
            std::memcpy(&raw, pos_ + 1, 8);
            ip_.update_masked(ipc, raw);
        } else {
            PacketIp packet;
            packet.ipc = static_cast<uint8_t>(ipc);
            packet.ip = n ? detail::read_value(pos_ + 1, n, config_.end) : 0;
            ip_.update(packet);
        }
        pos_ += n + 1;
        event_ = nullptr;
    } else {
        for (;;) {
            if (!have_next_) return provoke_fetch_error();
            if (will_event()) return -pte_bad_query;
            event_ = nullptr;
            uint8_t f = next_flags();
            // A TNT while bits are still cached means the user lost track.
            if ((f & pdff_tnt) && !tnt_.empty()) return -pte_bad_query;
            int status = decode(next_);
            if (status) return status;
            if (event_) return -pte_event_ignored;
            if (f & pdff_tip) break;
            status = read_ahead();
            if (status) return status;
        }
    }
    uint64_t ip = 0;
    if (ip_.query(&ip) < 0)
        flags |= pts_ip_suppressed;
    else
        addr = ip;
    int status = read_ahead_after_query();
    if (status < 0) return status;
    return flags | status_flags();
}

int QueryCore::event(QueryEvent& out) noexcept {
    if (run_size_) leave_tnt_run();
    if (!tnt_.empty()) return -pte_bad_query;
    for (;;) {
        // libipt master: events released ahead of the next packet's go first.
        if (QueryEvent* now = evq_.dequeue(evb_now)) [[unlikely]] {
            out = *now;
            event_at_ = pos_;
            event_kind_ = PacketKind::bad;
            break;
        }
        if (!have_next_) return provoke_fetch_error();
        uint8_t f = next_flags();
        // TIP and TNT only belong here as part of an event.
        if ((f & (pdff_tip | pdff_tnt)) && !will_event()) return -pte_bad_query;
        event_ = nullptr;
        event_at_ = pos_;
        event_kind_ = next_;
        int status = decode(next_);
        if (status) return status;
        if (event_) {
            // A packet's own event goes behind those it released.
            if (evq_.pending(evb_now) && evq_.is_standalone(event_)) [[unlikely]] {
                QueryEvent* last = evq_.enqueue(evb_now);
                if (!last) return -pte_nomem;
                *last = *event_;
                event_ = evq_.dequeue(evb_now);
            }
            out = *event_;
            break;
        }
        status = read_ahead();
        if (status) return status;
    }
    last_event_offset_ = event_offset(out);
    int status = read_ahead_after_query();
    if (status < 0) return status;
    return status_flags();
}

int QueryCore::event_time(QueryEvent& ev) const noexcept {
    int status = time_.query_tsc(&ev.tsc, &ev.lost_mtc, &ev.lost_cyc);
    if (status < 0) {
        if (status != -pte_no_time) return status;
    } else {
        ev.has_tsc = true;
    }
    return 0;
}

int QueryCore::event_ip(uint64_t& ip, QueryEvent& ev) const noexcept {
    int status = ip_.query(&ip);
    if (status < 0) {
        if (status == -pte_noip || status == -pte_ip_suppressed)
            ev.ip_suppressed = true;
        else
            return status;
    }
    return 0;
}

int QueryCore::decode(PacketKind kind) noexcept {
    switch (kind) {
        case PacketKind::bad:
            return -pte_bad_opc;
        case PacketKind::pad:
            pos_ += kPadSize;
            return 0;
        case PacketKind::psb:
            return decode_psb();
        case PacketKind::psbend:
            return decode_psbend();
        case PacketKind::tnt_8:
        case PacketKind::tnt_64:
            return decode_tnt(kind);
        case PacketKind::tip:
            return decode_tip();
        case PacketKind::tip_pge:
            return decode_tip_pge();
        case PacketKind::tip_pgd:
            return decode_tip_pgd();
        case PacketKind::fup:
            return decode_fup();
        case PacketKind::mode:
            return decode_mode();
        case PacketKind::pip:
            return decode_pip();
        case PacketKind::ovf:
            return decode_ovf();
        case PacketKind::tsc:
            return decode_tsc(false);
        case PacketKind::cbr:
            return decode_cbr(false);
        case PacketKind::tma:
            return decode_tma();
        case PacketKind::mtc:
            return decode_mtc();
        case PacketKind::cyc:
            return decode_cyc();
        case PacketKind::stop:
            return decode_stop();
        case PacketKind::vmcs:
            return decode_vmcs(false);
        case PacketKind::mnt:
            return decode_mnt(false);
        case PacketKind::exstop:
            return decode_exstop();
        case PacketKind::mwait:
            return decode_mwait();
        case PacketKind::pwre:
            return decode_pwre();
        case PacketKind::pwrx:
            return decode_pwrx();
        case PacketKind::ptw:
            return decode_ptw();
        case PacketKind::trig:
            return decode_trig();
        case PacketKind::cfe:
            return decode_cfe();
        case PacketKind::evd:
            return decode_evd();
    }
    return -pte_internal;
}

// Inside PSB+; -pte_bad_context for a packet that does not belong there.
int QueryCore::header(PacketKind kind) noexcept {
    switch (kind) {
        case PacketKind::bad:
            return -pte_bad_opc;
        case PacketKind::pad:
            pos_ += kPadSize;
            return 0;
        case PacketKind::fup:
            return header_fup();
        case PacketKind::pip:
            return header_pip();
        case PacketKind::mode:
            return header_mode();
        case PacketKind::tsc:
            return decode_tsc(true);
        case PacketKind::cbr:
            return decode_cbr(true);
        case PacketKind::tma:
            return decode_tma();
        case PacketKind::mtc:
            return decode_mtc();
        case PacketKind::cyc:
            return decode_cyc();
        case PacketKind::vmcs:
            return decode_vmcs(true);
        case PacketKind::mnt:
            return decode_mnt(true);
        default:
            return -pte_bad_context;
    }
}

int QueryCore::read_psb_header() noexcept {
    ip_.init();
    for (;;) {
        int status = fetch();
        if (status) return status;
        if (next_flags() & pdff_psbend) return 0;
        status = header(next_);
        if (status) return status;
    }
}

int QueryCore::decode_psb() noexcept {
    const uint8_t* pos = pos_;
    header_failed_at_ = nullptr;
    Packet packet;
    int size = read(packet, PacketKind::psb);
    if (size < 0) return size;
    pos_ += size;
    int status = read_psb_header();
    if (status < 0) {
        header_failed_at_ = pos_;
        sync_work_ += static_cast<uint64_t>(pos_ - pos);
        // Back to the PSB so decoding may recover; drop the header's events.
        pos_ = pos;
        evq_.clear(evb_psbend);
        next_ = PacketKind::psb;
        have_next_ = true;
        return status;
    }
    if (pos == probe_stop_) [[unlikely]]
        return kProbeStopped;
    return 0;
}

int QueryCore::decode_ip(Packet& packet) noexcept {
    int size = read_packet_kind(packet, next_, pos_, config_);
    if (size < 0) return size;
    int status = ip_.update(packet.payload.ip);
    if (status < 0) return status;
    return size;
}

int QueryCore::decode_tip() noexcept {
    Packet packet;
    int size = decode_ip(packet);
    if (size < 0) return size;
    QueryEvent* ev = evq_.dequeue(evb_tip);
    if (ev) {
        int status;
        switch (ev->type) {
            case EventKind::async_branch:
                consume_packet_ = true;
                status = event_ip(ev->ip, *ev);
                break;
            case EventKind::async_paging:
            case EventKind::async_vmcs:
            case EventKind::exec_mode:
            case EventKind::iflags:
                status = event_ip(ev->ip, *ev);
                break;
            default:
                status = -pte_bad_context;
                break;
        }
        if (status < 0) return status;
        event_ = ev;
        if (evq_.pending(evb_tip)) return 0;
        // Unless an event consumed it, the TIP stays for indirect_branch.
        if (!consume_packet_) return 0;
        consume_packet_ = false;
    }
    pos_ += size;
    return 0;
}

int QueryCore::decode_tnt(PacketKind kind) noexcept {
    Packet packet;
    int size = read(packet, kind);
    if (size < 0) return size;
    int status = tnt_.add(packet.payload.tnt);
    if (status < 0) return status;
    pos_ += size;
    tnt_end_ = pos_;
    return 0;
}

int QueryCore::decode_tip_pge() noexcept {
    Packet packet;
    int size = decode_ip(packet);
    if (size < 0) return size;
    QueryEvent* ev = nullptr;
    // The enabled event comes first; queued events bound to this TIP.PGE follow.
    if (!consume_packet_) {
        ev = evq_.standalone();
        ev->type = EventKind::enabled;
        if (ip_.query(&ev->ip) < 0) return -pte_bad_packet;
        int status = event_time(*ev);
        if (status < 0) return status;
        // Drop TNT bits the user did not consume at the disable.
        tnt_.init();
        consume_packet_ = true;
        enabled_ = true;
    } else {
        ev = evq_.dequeue(evb_tip);
        if (ev) {
            if (ev->type != EventKind::exec_mode && ev->type != EventKind::iflags) return -pte_bad_context;
            int status = event_ip(ev->ip, *ev);
            if (status < 0) return status;
        }
    }
    if (!ev) return -pte_internal;
    event_ = ev;
    if (evq_.pending(evb_tip)) return 0;
    if (!consume_packet_) return -pte_internal;
    consume_packet_ = false;
    pos_ += size;
    return 0;
}

int QueryCore::decode_tip_pgd() noexcept {
    Packet packet;
    int size = decode_ip(packet);
    if (size < 0) return size;
    QueryEvent* ev = evq_.dequeue(evb_tip);
    if (ev) {
        switch (ev->type) {
            case EventKind::async_branch: {
                // An async branch that disables tracing becomes an async disable.
                ev->type = EventKind::async_disabled;
                int status = event_ip(ev->ip, *ev);
                if (status < 0) return status;
                break;
            }
            case EventKind::async_paging:
            case EventKind::async_vmcs:
            case EventKind::exec_mode:
            case EventKind::iflags:
                // Tracing is off when these apply: no IP.
                ev->ip_suppressed = true;
                break;
            default:
                return -pte_bad_context;
        }
    } else {
        ev = evq_.standalone();
        ev->type = EventKind::disabled;
        int status = event_ip(ev->ip, *ev);
        if (status < 0) return status;
        status = event_time(*ev);
        if (status < 0) return status;
    }
    event_ = ev;
    if (evq_.pending(evb_tip)) return 0;
    enabled_ = false;
    pos_ += size;
    return 0;
}

int first_packet_is(const Config& config, const uint8_t* pos, PacketType want, bool skip_state) noexcept {
    PacketDecoder pkt(config);
    int status = pkt.sync_set(static_cast<uint64_t>(pos - config.begin));
    if (status < 0) return status;
    for (;;) {
        Packet packet;
        status = pkt.next(packet);
        if (status < 0) return status == -pte_eos ? 0 : status;
        if (packet.type == want) return 1;
        switch (packet.type) {
            case PacketType::psbend:
            case PacketType::pip:
            case PacketType::mode:
            case PacketType::vmcs:
                if (!skip_state) return 0;
                continue;
            case PacketType::pad:
            case PacketType::tsc:
            case PacketType::cbr:
            case PacketType::tma:
            case PacketType::mtc:
            case PacketType::cyc:
            case PacketType::mnt:
                continue;
            default:
                return 0;
        }
    }
}

int QueryCore::check_erratum_bdm70(const uint8_t* pos) const noexcept {
    return first_packet_is(config_, pos, PacketType::tip_pge, true);
}

int QueryCore::header_fup() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::fup);
    if (size < 0) return size;
    if (config_.errata.bdm70 && !enabled_) {
        // BDM70: a FUP in PSB+ right before the TIP.PGE that enables tracing is spurious.
        int status = check_erratum_bdm70(pos_ + size);
        if (status < 0) return status;
        if (status) {
            pos_ += size;
            return 0;
        }
    }
    int status = ip_.update(packet.payload.ip);
    if (status < 0) return status;
    if (packet.payload.ip.ipc != ipc_suppressed) enabled_ = true;
    pos_ += size;
    return 0;
}

int QueryCore::decode_fup() noexcept {
    Packet packet;
    int size = decode_ip(packet);
    if (size < 0) return size;
    QueryEvent* ev = evq_.dequeue(evb_fup);
    if (ev && ev->type == EventKind::ignore) {
        // An unknown CFE's FUP: taken, nothing published.
        consume_packet_ = true;
        if (evq_.pending(evb_fup)) return 0;
        consume_packet_ = false;
        pos_ += size;
        return 0;
    }
    if (ev) {
        int status;
        switch (ev->type) {
            case EventKind::overflow:
                consume_packet_ = true;
                status = ip_.query(&ev->ip);  // no suppressed IP here
                break;
            case EventKind::tsx:
                if (!ev->aborted) consume_packet_ = true;
                status = event_ip(ev->ip, *ev);
                break;
            case EventKind::exstop:
                // libipt master: the PWREs before the EXSTOP follow it.
                if (int moved = move_events(evb_pwre, evb_now, false); moved < 0) return moved;
                consume_packet_ = true;
                status = event_ip(ev->ip, *ev);
                break;
            case EventKind::mwait:
            case EventKind::ptwrite:
            case EventKind::trig:
            case EventKind::exec_mode:
            case EventKind::iflags:
                consume_packet_ = true;
                status = event_ip(ev->ip, *ev);
                break;
            case EventKind::interrupt:
            case EventKind::iret:
            case EventKind::smi:
            case EventKind::rsm:
            case EventKind::sipi:
            case EventKind::init:
            case EventKind::vmentry:
            case EventKind::vmexit:
            case EventKind::shutdown:
            case EventKind::uintr:
            case EventKind::uiret:
            case EventKind::swintr:
            case EventKind::syscall:
                if (!ev->keeps_fup) consume_packet_ = true;
                status = event_time(*ev);
                // RSM and SIPI bind to the FUP without taking its IP.
                if (status >= 0 && ev->type != EventKind::rsm && ev->type != EventKind::sipi)
                    status = event_ip(ev->ip, *ev);
                break;
            default:
                status = -pte_internal;
                break;
        }
        if (status < 0) return status;
        event_ = ev;
        if (evq_.pending(evb_fup)) return 0;
        if (!consume_packet_) return 0;
        consume_packet_ = false;
    } else if (fup_taken_) {
        // libipt master: a MODE.EXEC that changed nothing took this FUP.
        fup_taken_ = false;
    } else {
        // A FUP on its own starts an async branch that binds to the next TIP.
        uint64_t ip = 0;
        int status = ip_.query(&ip);
        if (status < 0) return status;
        ev = evq_.enqueue(evb_tip);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::async_branch;
        ev->from = ip;
        status = event_time(*ev);
        if (status < 0) return status;
    }
    pos_ += size;
    return 0;
}

int QueryCore::decode_pip() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::pip);
    if (size < 0) return size;
    // Standalone, or bound to the TIP of an in-flight async branch.
    QueryEvent* ev = evq_.find(evb_tip, EventKind::async_branch);
    if (!ev) {
        ev = evq_.standalone();
        ev->type = EventKind::paging;
        event_ = ev;
    } else {
        ev = evq_.enqueue(evb_tip);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::async_paging;
    }
    ev->cr3 = packet.payload.pip.cr3;
    ev->non_root = packet.payload.pip.nr;
    int status = event_time(*ev);
    if (status < 0) return status;
    pos_ += size;
    return 0;
}

int QueryCore::header_pip() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::pip);
    if (size < 0) return size;
    QueryEvent* ev = evq_.enqueue(evb_psbend);
    if (!ev) return -pte_nomem;
    ev->type = EventKind::async_paging;
    ev->cr3 = packet.payload.pip.cr3;
    ev->non_root = packet.payload.pip.nr;
    pos_ += size;
    return 0;
}

int QueryCore::process_pending_psb_events() noexcept {
    QueryEvent* ev = evq_.dequeue(evb_psbend);
    if (!ev) return 0;
    ev->status_update = true;
    int status = event_time(*ev);
    if (status < 0) return status;
    switch (ev->type) {
        case EventKind::async_paging:
        case EventKind::exec_mode:
        case EventKind::iflags:
        case EventKind::tsx:
        case EventKind::async_vmcs:
            status = event_ip(ev->ip, *ev);
            if (status < 0) return status;
            break;
        case EventKind::cbr:
            break;
        case EventKind::mnt:
            // Maintenance packets may appear anywhere: not a status update.
            ev->status_update = false;
            break;
        default:
            return -pte_internal;
    }
    event_ = ev;
    return 1;
}

int QueryCore::event_ovf_disabled() noexcept {
    QueryEvent* ev = evq_.standalone();
    ev->type = EventKind::overflow;
    // Tracing was disabled when the overflow resolved.
    ev->ip_suppressed = true;
    enabled_ = false;
    event_ = ev;
    return event_time(*ev);
}

// After an OVF: the offset just past the FUP it binds to, 0 when tracing resumes disabled, or an
// error.
int QueryCore::find_ovf_fup() const noexcept {
    uint64_t begin = static_cast<uint64_t>(pos_ - config_.begin);
    PacketDecoder pkt(config_);
    int status = pkt.sync_set(begin);
    if (status < 0) return status;
    for (;;) {
        Packet packet;
        status = pkt.next(packet);
        if (status < 0) return status;
        switch (packet.type) {
            case PacketType::fup: {
                uint64_t end = 0;
                status = pkt.get_offset(end);
                if (status < 0) return status;
                if (end <= begin) return -pte_overflow;
                if (end - begin > INT_MAX) return -pte_overflow;
                return static_cast<int>(end - begin);
            }
            case PacketType::invalid:
                return -pte_bad_opc;
            case PacketType::unknown:
            case PacketType::pad:
            case PacketType::mnt:
            case PacketType::cbr:
            case PacketType::tsc:
            case PacketType::tma:
            case PacketType::mtc:
            case PacketType::cyc:
                continue;
            case PacketType::psbend:
            case PacketType::tip:
            case PacketType::tip_pgd:
            case PacketType::tnt_8:
            case PacketType::tnt_64:
                return -pte_bad_context;
            default:
                return 0;
        }
    }
}

int QueryCore::decode_ovf() noexcept {
    int status = process_pending_psb_events();
    if (status < 0) return status;
    if (status) return 0;
    // libipt master: the power events still waiting are released before the overflow, without
    // the IP they waited for.
    QueryEvent waiting[3 * EventQueue::kMax];
    size_t nwaiting = 0;
    if (master_) {
        status = flush_power_events();
        if (status < 0) return status;
        while (const QueryEvent* ev = evq_.dequeue(evb_now)) waiting[nwaiting++] = *ev;
        while (const QueryEvent* ev = evq_.dequeue(evb_fup))
            if (ev->type == EventKind::mwait || ev->type == EventKind::exstop) {
                waiting[nwaiting] = *ev;
                waiting[nwaiting++].ip_suppressed = true;
            }
    }
    // Start over, keeping only the time (and the calibration when asked to).
    TimeState time = time_;
    TimeCal tcal = tcal_;
    reset();
    for (size_t i = 0; i < nwaiting; ++i) {
        QueryEvent* ev = evq_.enqueue(evb_now);
        if (!ev) return -pte_nomem;
        *ev = waiting[i];
    }
    time_ = time;
    if (config_.keep_tcal_on_ovf) {
        tcal.update_ovf();
        tcal_ = tcal;
    }
    pos_ += kOvfSize;
    // The overflow binds to a FUP if it resolved with tracing enabled, else to TIP.PGE.
    int offset = find_ovf_fup();
    if (offset <= 0) {
        // SKD010: the FUP may have been dropped; APL11: a spurious TIP.PGD may follow.
        if (config_.errata.skd010) {
            status = handle_skd010();
            if (status < 0) return status;
            if (status) return 0;
        }
        if (config_.errata.apl11 && offset == -pte_bad_context) {
            status = handle_apl11();
            if (status <= 0) return status;
        }
        // An overflow at the end of the trace is standalone.
        if (offset < 0 && offset != -pte_eos) return offset;
        return event_ovf_disabled();
    }
    // APL12: a FUP even though the overflow resolved with tracing disabled.
    if (config_.errata.apl12) {
        status = handle_apl12(offset);
        if (status <= 0) return status;
    }
    QueryEvent* ev = evq_.enqueue(evb_fup);
    if (!ev) return -pte_internal;
    ev->type = EventKind::overflow;
    enabled_ = true;
    return event_time(*ev);
}

int QueryCore::decode_mode() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::mode);
    if (size < 0) return size;
    const PacketMode& m = packet.payload.mode;
    int status = 0;
    if (m.leaf == ModeLeaf::exec && master_) {
        status = decode_mode_exec(m, pos_ + size);
    } else if (m.leaf == ModeLeaf::exec) {
        QueryEvent* ev = evq_.enqueue(evb_tip);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::exec_mode;
        ev->exec_mode = exec_mode_of(m);
        status = event_time(*ev);
    } else {
        // Standalone while tracing is disabled, without an IP.
        QueryEvent* ev = fup_or_standalone(enabled_);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::tsx;
        ev->speculative = m.intx;
        ev->aborted = m.abrt;
        status = event_time(*ev);
    }
    if (status < 0) return status;
    pos_ += size;
    return 0;
}

int QueryCore::header_mode() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::mode);
    if (size < 0) return size;
    const PacketMode& m = packet.payload.mode;
    if (master_ && m.leaf == ModeLeaf::exec) {
        int status = header_mode_exec(m);
        if (status < 0) return status;
    }
    QueryEvent* ev = evq_.enqueue(evb_psbend);
    if (!ev) return -pte_nomem;
    if (m.leaf == ModeLeaf::exec) {
        ev->type = EventKind::exec_mode;
        ev->exec_mode = exec_mode_of(m);
        if (master_ && config_.iflags_events) {
            if (!(ev = evq_.enqueue(evb_psbend))) return -pte_nomem;
            ev->type = EventKind::iflags;
            ev->iflag = m.iflag;
        }
    } else {
        ev->type = EventKind::tsx;
        ev->speculative = m.intx;
        ev->aborted = m.abrt;
    }
    pos_ += size;
    return 0;
}

int QueryCore::decode_psbend() noexcept {
    int status = process_pending_psb_events();
    if (status < 0) return status;
    if (status) return 0;
    pos_ += kPsbendSize;
    return 0;
}

int QueryCore::decode_tsc(bool in_header) noexcept {
    Packet packet;
    int size = read(packet, PacketKind::tsc);
    if (size < 0) return size;
    uint64_t tsc = packet.payload.tsc;
    int status = timing_error(in_header ? tcal_.header_tsc(tsc) : tcal_.update_tsc(tsc));
    if (status < 0) return status;
    status = timing_error(time_.update_tsc(tsc));
    if (status < 0) return status;
    pos_ += size;
    return 0;
}

int QueryCore::decode_cbr(bool in_header) noexcept {
    Packet packet;
    int size = read(packet, PacketKind::cbr);
    if (size < 0) return size;
    uint8_t ratio = packet.payload.cbr;
    int status =
        timing_error(in_header ? tcal_.header_cbr(ratio, config_) : tcal_.update_cbr(ratio, config_));
    if (status < 0) return status;
    status = timing_error(time_.update_cbr(ratio));
    if (status < 0) return status;
    QueryEvent* ev = status_event(in_header);
    if (!ev) return -pte_nomem;
    ev->type = EventKind::cbr;
    ev->ratio = ratio;
    if (!in_header) {
        status = event_time(*ev);
        if (status < 0) return status;
    }
    pos_ += size;
    return 0;
}

int QueryCore::decode_tma() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::tma);
    // SKZ84: VMX TSC scaling may set reserved TMA bits; the packet decoder reports it invalid
    // (8 bytes), and decoding goes on after it.
    if (size == -pte_bad_packet && config_.errata.skz84 && config_.end - pos_ >= 8) {
        pos_ += 8;
        return 0;
    }
    if (size < 0) return size;
    int status = timing_error(time_.update_tma(packet.payload.tma, config_));
    if (status < 0) return status;
    pos_ += size;
    return 0;
}

int QueryCore::decode_mtc() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::mtc);
    if (size < 0) return size;
    int status = timing_error(tcal_.update_mtc(packet.payload.mtc, config_));
    if (status < 0) return status;
    status = timing_error(time_.update_mtc(packet.payload.mtc, config_));
    if (status < 0) return status;
    pos_ += size;
    return 0;
}

int QueryCore::apply_cyc(uint64_t cyc) noexcept {
    int status = timing_error(tcal_.update_cyc(cyc));
    if (status < 0) return status;
    // Without calibration yet, a ratio of 0 makes the time layer count a lost CYC.
    uint64_t fcr = 0;
    status = tcal_.get_fcr(fcr);
    if (status < 0) {
        if (status != -pte_no_time) return status;
        fcr = 0;
    }
    return timing_error(time_.update_cyc(cyc, config_, fcr));
}

int QueryCore::decode_cyc() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::cyc);
    if (size < 0) return size;
    if (config_.errata.skd007 && size == 2) {
        // SKD007: a partial CYC overlapping an OVF; skip to the OVF.
        auto payload = static_cast<uint16_t>(packet.payload.cyc);
        const uint8_t* p = pos_ + size;
        if ((payload & ~0x1f) == 0x20 && p < config_.end && *p == 0xf3) {
            pos_ += 1;
            return 0;
        }
    }
    int status = apply_cyc(packet.payload.cyc);
    if (status < 0) return status;
    pos_ += size;
    return 0;
}

QueryEvent* QueryCore::status_event(bool in_header) noexcept {
    if (in_header) return evq_.enqueue(evb_psbend);
    event_ = evq_.standalone();
    return event_;
}

QueryEvent* QueryCore::fup_or_standalone(bool bound) noexcept {
    if (bound) return evq_.enqueue(evb_fup);
    event_ = evq_.standalone();
    event_->ip_suppressed = true;
    return event_;
}

int QueryCore::decode_stop() noexcept {
    QueryEvent* ev = evq_.standalone();
    ev->type = EventKind::stop;
    event_ = ev;
    int status = event_time(*ev);
    if (status < 0) return status;
    pos_ += kStopSize;
    return 0;
}

int QueryCore::decode_vmcs(bool in_header) noexcept {
    Packet packet;
    int size = read(packet, PacketKind::vmcs);
    if (size < 0) return size;
    uint64_t base = packet.payload.vmcs_base;
    if (in_header) {
        QueryEvent* ev = evq_.enqueue(evb_psbend);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::async_vmcs;
        ev->base = base;
        pos_ += size;
        return 0;
    }
    // With an in-flight async paging event, the VMCS event goes first: it takes the paging
    // event's place and the paging event moves to the end.
    if (QueryEvent* paging = evq_.find(evb_tip, EventKind::async_paging)) {
        QueryEvent* moved = evq_.enqueue(evb_tip);
        if (!moved) return -pte_nomem;
        *moved = *paging;
        paging->type = EventKind::async_vmcs;
        paging->base = base;
        // libipt's union puts the VMCS IP where the paging event kept its non-root bit.
        paging->ip = paging->non_root;
        pos_ += size;
        return 0;
    }
    if (evq_.find(evb_tip, EventKind::async_branch)) {
        QueryEvent* ev = evq_.enqueue(evb_tip);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::async_vmcs;
        ev->base = base;
        pos_ += size;
        return 0;
    }
    QueryEvent* ev = evq_.standalone();
    ev->type = EventKind::vmcs;
    ev->base = base;
    event_ = ev;
    int status = event_time(*ev);
    if (status < 0) return status;
    pos_ += size;
    return 0;
}

int QueryCore::decode_mnt(bool in_header) noexcept {
    Packet packet;
    int size = read(packet, PacketKind::mnt);
    if (size < 0) return size;
    QueryEvent* ev = status_event(in_header);
    if (!ev) return -pte_nomem;
    ev->type = EventKind::mnt;
    ev->payload = packet.payload.mnt;
    if (!in_header) {
        int status = event_time(*ev);
        if (status < 0) return status;
    }
    pos_ += size;
    return 0;
}

int QueryCore::decode_exstop() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::exstop);
    if (size < 0) return size;
    if (master_) {
        // libipt master: the MWAITs before it bind where it binds (its FUP, else here), then
        // the EXSTOP, then the PWREs before it.
        const bool ip = packet.payload.exstop_ip;
        int status = move_events(evb_exstop, ip ? evb_fup : evb_now, ip);
        if (status < 0) return status;
        QueryEvent* ev = evq_.enqueue(ip ? evb_fup : evb_now);
        if (!ev) return -pte_nomem;
        ev->type = EventKind::exstop;
        ev->ip_suppressed = !ip;
        if (!ip) {
            status = move_events(evb_pwre, evb_now, false);
            if (status < 0) return status;
        }
        pos_ += size;
        return 0;
    }
    QueryEvent* ev = fup_or_standalone(packet.payload.exstop_ip);
    if (!ev) return -pte_internal;
    ev->type = EventKind::exstop;
    pos_ += size;
    return 0;
}

int QueryCore::decode_mwait() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::mwait);
    if (size < 0) return size;
    QueryEvent* ev = evq_.enqueue(master_ ? evb_exstop : evb_fup);
    if (!ev) return -pte_internal;
    ev->type = EventKind::mwait;
    ev->hints = packet.payload.mwait.hints;
    ev->ext = packet.payload.mwait.ext;
    pos_ += size;
    return 0;
}

int QueryCore::decode_pwre() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::pwre);
    if (size < 0) return size;
    // libipt master: after the EXSTOP that follows.
    QueryEvent* ev = master_ ? evq_.enqueue(evb_pwre) : evq_.standalone();
    if (!ev) return -pte_nomem;
    ev->type = EventKind::pwre;
    ev->state = packet.payload.pwre.state;
    ev->sub_state = packet.payload.pwre.sub_state;
    ev->hw = packet.payload.pwre.hw;
    if (!master_) event_ = ev;
    pos_ += size;
    return 0;
}

int QueryCore::decode_pwrx() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::pwrx);
    if (size < 0) return size;
    int status = flush_power_events();
    if (status < 0) return status;
    QueryEvent* ev = evq_.standalone();
    ev->type = EventKind::pwrx;
    ev->last = packet.payload.pwrx.last;
    ev->deepest = packet.payload.pwrx.deepest;
    ev->interrupt = packet.payload.pwrx.interrupt;
    ev->store = packet.payload.pwrx.store;
    ev->autonomous = packet.payload.pwrx.autonomous;
    event_ = ev;
    pos_ += size;
    return 0;
}

int QueryCore::decode_ptw() noexcept {
    Packet packet;
    int size = read(packet, PacketKind::ptw);
    if (size < 0) return size;
    int pls = ptw_size(packet.payload.ptw.plc);
    if (pls < 0) return pls;
    QueryEvent* ev = fup_or_standalone(packet.payload.ptw.ip);
    if (!ev) return -pte_internal;
    ev->type = EventKind::ptwrite;
    ev->size = static_cast<uint8_t>(pls);
    ev->payload = packet.payload.ptw.payload;
    pos_ += size;
    return 0;
}

const char* event_kind_name(EventKind kind) noexcept {
    static constexpr const char* kNames[] = {
        "enabled",      "disabled",   "async_disabled", "async_branch", "paging",
        "async_paging", "overflow",   "exec_mode",      "tsx",          "stop",
        "vmcs",         "async_vmcs", "exstop",         "mwait",        "pwre",
        "pwrx",         "ptwrite",    "tick",           "cbr",          "mnt",
        "trig",         "interrupt",  "iret",           "smi",          "rsm",
        "sipi",         "init",       "vmentry",        "vmexit",       "shutdown",
        "uintr",        "uiret",      "swintr",         "syscall",      "ignore",
        "iflags"};
    auto i = static_cast<size_t>(kind);
    return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "unknown";
}

}  // namespace ringscope::ipt
