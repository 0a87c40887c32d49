// The query decoder inside PSB+: the packets a PSB+ may hold, the events they queue until PSBEND
// (and that PSBEND or an OVF then publishes), and the BDM70 erratum (a spurious FUP in PSB+ right
// before the TIP.PGE that enables tracing).
#include "ipt/errors.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/query_decoder.hpp"

namespace ringscope::ipt {

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

}  // namespace ringscope::ipt
