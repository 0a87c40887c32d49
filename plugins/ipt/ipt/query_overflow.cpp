// The query decoder at an OVF: it starts over, keeping the time, and the overflow binds to the FUP
// where tracing resumed, or resolves with tracing disabled (the errata that change which are in
// query_errata.cpp).
#include <climits>
#include <cstddef>

#include "ipt/errors.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/query_decoder.hpp"

namespace ringscope::ipt {

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

}  // namespace ringscope::ipt
