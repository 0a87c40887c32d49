// The query decoder's workarounds for overflow errata (libipt 2.0.5's, applied when the cpu has
// them): SKD010 (the FUP after an OVF may be dropped), APL11 (an OVF may be followed by a spurious
// TIP.PGD) and APL12 (an OVF that resolved with tracing disabled may still bring a FUP). Each looks
// ahead with a packet decoder from after the OVF and, where the erratum applies, resumes at the
// packet that tells how the overflow really resolved.
#include "ipt/errors.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/query_decoder.hpp"

namespace ringscope::ipt {
namespace {

// A timing packet into time and its calibration (libipt's pt_qry_apply_*), for packets skipped on
// the way to where decoding resumes.
int apply_timing(TimeState& time, TimeCal& tcal, const Packet& p, const Config& config) noexcept {
    int status = 0;
    switch (p.type) {
        case PacketType::tsc:
            status = timing_error(tcal.update_tsc(p.payload.tsc));
            return status < 0 ? status : timing_error(time.update_tsc(p.payload.tsc));
        case PacketType::cbr:
            status = timing_error(tcal.update_cbr(p.payload.cbr, config));
            return status < 0 ? status : timing_error(time.update_cbr(p.payload.cbr));
        case PacketType::tma:
            return timing_error(time.update_tma(p.payload.tma, config));
        case PacketType::mtc:
            status = timing_error(tcal.update_mtc(p.payload.mtc, config));
            return status < 0 ? status : timing_error(time.update_mtc(p.payload.mtc, config));
        case PacketType::cyc: {
            status = timing_error(tcal.update_cyc(p.payload.cyc));
            if (status < 0) return status;
            uint64_t fcr = 0;
            status = tcal.get_fcr(fcr);
            if (status < 0 && status != -pte_no_time) return status;
            return timing_error(time.update_cyc(p.payload.cyc, config, status < 0 ? 0 : fcr));
        }
        default:
            return 0;
    }
}

// In a PSB+ (after the PSB): 1 and the FUP in fup, 0 at PSBEND without one, or an error.
int find_header_fup(PacketDecoder& pkt, Packet& fup) noexcept {
    for (;;) {
        int status = pkt.next(fup);
        if (status < 0) return status;
        if (fup.type == PacketType::psbend) return 0;
        if (fup.type == PacketType::fup) return 1;
    }
}

// APL12: whether the packets after the FUP say tracing is disabled (0), enabled or cannot tell
// (1), or an error.
int apl12_tracing_is_disabled(PacketDecoder& pkt) noexcept {
    for (;;) {
        Packet p;
        int status = pkt.next(p);
        if (status < 0) return status == -pte_eos ? 1 : status;
        switch (p.type) {
            case PacketType::stop:
            case PacketType::tip_pge:
                return 0;
            case PacketType::tnt_8:
            case PacketType::tnt_64:
            case PacketType::tip:
            case PacketType::tip_pgd:
            case PacketType::ovf:
            case PacketType::unknown:
            case PacketType::invalid:
                return 1;
            case PacketType::psb: {
                Packet fup;
                status = find_header_fup(pkt, fup);
                return status == -pte_eos ? 1 : status;
            }
            case PacketType::psbend:
                return -pte_bad_context;
            default:
                break;
        }
    }
}

}  // namespace

int QueryCore::handle_apl11() noexcept {
    PacketDecoder pkt(config_);
    int status = pkt.sync_set(static_cast<uint64_t>(pos_ - config_.begin));
    if (status < 0) return status;
    TimeState time = time_;
    TimeCal tcal = tcal_;
    for (;;) {
        Packet p;
        status = pkt.next(p);
        if (status < 0) return status;
        switch (p.type) {
            case PacketType::tip_pgd: {
                // The spurious TIP.PGD: resume after it, tracing disabled.
                uint64_t offset = 0;
                status = pkt.get_offset(offset);
                if (status < 0) return status;
                time_ = time;
                tcal_ = tcal;
                pos_ = config_.begin + offset;
                return event_ovf_disabled();
            }
            case PacketType::invalid:
                return -pte_bad_opc;
            case PacketType::unknown:
            case PacketType::pad:
            case PacketType::mnt:
                break;
            case PacketType::psbend:
            case PacketType::tip:
            case PacketType::tnt_8:
            case PacketType::tnt_64:
                return -pte_bad_context;
            case PacketType::tsc:
            case PacketType::cbr:
            case PacketType::tma:
            case PacketType::mtc:
            case PacketType::cyc:
                status = apply_timing(time, tcal, p, config_);
                if (status < 0) return status;
                break;
            default:
                // Anything else: the erratum does not apply.
                return 1;
        }
    }
}

int QueryCore::handle_apl12(int offset) noexcept {
    const uint64_t here = static_cast<uint64_t>(pos_ - config_.begin);
    PacketDecoder pkt(config_);
    int status = pkt.sync_set(here + static_cast<uint64_t>(offset));
    if (status < 0) return status;
    status = apl12_tracing_is_disabled(pkt);
    if (status) return status;
    // Tracing is disabled: skip to after the FUP, keeping the time of what is skipped.
    status = pkt.sync_set(here);
    if (status < 0) return status;
    const uint64_t end = here + static_cast<uint64_t>(offset);
    for (;;) {
        Packet p;
        status = pkt.next(p);
        // Out of packets: libipt stops here, without the event.
        if (status < 0) return status == -pte_eos ? 0 : status;
        uint64_t next = 0;
        status = pkt.get_offset(next);
        if (status < 0) return status;
        if (end <= next) {
            if (end < next) return -pte_internal;
            break;
        }
        if (p.type == PacketType::mode || p.type == PacketType::pip || p.type == PacketType::vmcs)
            return -pte_internal;
        status = apply_timing(time_, tcal_, p, config_);
        if (status < 0) return status;
    }
    pos_ += offset;
    status = event_ovf_disabled();
    return status < 0 ? status : 0;
}

int QueryCore::skd010_recover(const PacketIp& packet, const TimeCal& tcal, const TimeState& time,
                              uint64_t offset) noexcept {
    LastIp ip = ip_;
    int status = ip.update(packet);
    if (status < 0) return status;
    QueryEvent* ev = evq_.standalone();
    ev->type = EventKind::overflow;
    // A full IP is needed to resume.
    if (ip.query(&ev->ip) < 0) return -pte_bad_context;
    pos_ = config_.begin + offset;
    enabled_ = true;
    ip_ = ip;
    time_ = time;
    tcal_ = tcal;
    event_ = ev;
    status = event_time(*ev);
    return status < 0 ? status : 1;
}

int QueryCore::skd010_recover_disabled(const TimeCal& tcal, const TimeState& time, uint64_t offset) noexcept {
    pos_ = config_.begin + offset;
    time_ = time;
    tcal_ = tcal;
    int status = event_ovf_disabled();
    return status < 0 ? status : 1;
}

int QueryCore::handle_skd010() noexcept {
    PacketDecoder pkt(config_);
    int status = pkt.sync_set(static_cast<uint64_t>(pos_ - config_.begin));
    if (status < 0) return status;
    TimeState time = time_;
    TimeCal tcal = tcal_;
    // A MODE.TSX may bind to a FUP that follows: where to resume if one does.
    bool have_tsx = false;
    uint64_t tsx_offset = 0;
    TimeState tsx_time;
    TimeCal tsx_tcal;
    for (;;) {
        uint64_t offset = 0;
        status = pkt.get_offset(offset);
        if (status < 0) return status;
        Packet p;
        status = pkt.next(p);
        // Out of packets: take the trace as correct.
        if (status < 0) return status == -pte_eos ? 0 : status;
        switch (p.type) {
            case PacketType::tip_pge:
            case PacketType::tnt_8:
            case PacketType::tnt_64:
            case PacketType::ovf:
            case PacketType::stop:
            case PacketType::unknown:
            case PacketType::invalid:
            case PacketType::mwait:
                return 0;
            case PacketType::tip_pgd:
                return skd010_recover_disabled(tcal, time, offset + p.size);
            case PacketType::mode:
                if (p.payload.mode.leaf != ModeLeaf::tsx) break;
                if (have_tsx) return 0;
                have_tsx = true;
                tsx_offset = offset;
                tsx_time = time;
                tsx_tcal = tcal;
                break;
            case PacketType::fup:
                if (have_tsx) return skd010_recover(p.payload.ip, tsx_tcal, tsx_time, tsx_offset);
                return skd010_recover(p.payload.ip, tcal, time, offset);
            case PacketType::tip:
                return skd010_recover(p.payload.ip, tcal, time, offset + p.size);
            case PacketType::psb: {
                Packet fup;
                status = find_header_fup(pkt, fup);
                if (status <= 0) return status == -pte_eos ? 0 : status;
                return skd010_recover(fup.payload.ip, tcal, time, offset);
            }
            case PacketType::psbend:
                return -pte_bad_context;
            case PacketType::exstop:
                if (p.payload.exstop_ip) return 0;
                break;
            case PacketType::ptw:
                if (p.payload.ptw.ip) return 0;
                break;
            default:
                status = apply_timing(time, tcal, p, config_);
                if (status < 0) return status;
                break;
        }
    }
}

}  // namespace ringscope::ipt
