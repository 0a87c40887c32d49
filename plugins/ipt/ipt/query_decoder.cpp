// The query decoder's core: its state, the read-ahead from one query's packet to the next, the
// three queries (cond_branch, indirect_branch, event) and the dispatch of a packet to its
// decoder. The packets' decoders are in files of their own: query_psb.cpp (PSB+),
// query_ip_packets.cpp (TIP, TIP.PGE, TIP.PGD, FUP), query_timing.cpp, query_events.cpp,
// query_overflow.cpp and query_errata.cpp (OVF), query_master.cpp (libipt master's packets);
// query_sync.cpp synchronizes, query_tnt_run.cpp caches runs of TNT packets.
#include "ipt/query_decoder.hpp"

#include <array>
#include <cstddef>
#include <cstring>

#include "ipt/errors.hpp"

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

}  // namespace ringscope::ipt
