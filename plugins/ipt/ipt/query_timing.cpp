// The query decoder's timing packets (TSC, CBR, TMA, MTC, CYC): into the time queries and events
// report and the calibration of CYC against it, as libipt's pt_qry_decode_* do.
#include "ipt/errors.hpp"
#include "ipt/query_decoder.hpp"

namespace ringscope::ipt {

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

}  // namespace ringscope::ipt
