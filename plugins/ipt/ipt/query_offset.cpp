// libipt master's trace offset at a decode error. Master's flow decoders sit on an event decoder
// that keeps one event ahead (the next TNT, TIP or event the flow has not taken); its offset is
// where its current packet starts. A packet that binds events (FUP, TIP, TIP.PGE, TIP.PGD, PSBEND)
// stays current while it makes them; a packet that makes an event alone (TNT, PTW, CBR, ...) is
// passed, and PADs after it with it. libipt 2.0.5's offset (get_offset) is where its query decoder
// read ahead to, which is often further.
#include "ipt/errors.hpp"
#include "ipt/query_decoder.hpp"

namespace ringscope::ipt {
namespace {

// Where the packet at pos ends (pos when it does not decode).
const uint8_t* packet_end(const uint8_t* pos, const Config& config) noexcept {
    PacketKind kind;
    Packet packet;
    if (fetch_kind(kind, pos, config) < 0) return pos;
    const int size = read_packet_kind(packet, kind, pos, config);
    return size > 0 ? pos + size : pos;
}

// The first packet from pos that is not a PAD (master's event decoder skips them).
const uint8_t* skip_pads(const uint8_t* pos, const Config& config) noexcept {
    while (pos && pos >= config.begin && pos < config.end && *pos == 0) pos += kPadSize;
    return pos;
}

const uint8_t* past(const uint8_t* pos, const Config& config) noexcept {
    return skip_pads(packet_end(pos, config), config);
}

// The PSBEND (or the OVF in its place) of the PSB+ at pos: where master publishes its events.
const uint8_t* header_end(const uint8_t* pos, const Config& config) noexcept {
    for (;;) {
        PacketKind kind;
        if (fetch_kind(kind, pos, config) < 0) return pos;
        if (kind == PacketKind::psbend || kind == PacketKind::ovf) return pos;
        const uint8_t* next = packet_end(pos, config);
        if (next == pos) return pos;
        pos = next;
    }
}

}  // namespace

uint64_t QueryCore::event_offset(const QueryEvent& ev) const noexcept {
    const uint8_t* at = event_at_;
    switch (event_kind_) {
        case PacketKind::fup:
        case PacketKind::tip:
        case PacketKind::tip_pge:
        case PacketKind::psbend:
        case PacketKind::bad:
            break;
        case PacketKind::psb:
            at = header_end(at, config_);
            break;
        case PacketKind::tip_pgd:
            // Events bound to it first; its own disable is the last and passes it.
            if (ev.type == EventKind::disabled) at = past(at, config_);
            break;
        case PacketKind::ovf:
            // Events of a PSB+ it ends stay at it; its own overflow passes it.
            if (ev.type == EventKind::overflow) at = past(at, config_);
            break;
        case PacketKind::exstop:
            // An MWAIT published at its EXSTOP keeps the EXSTOP for its own event.
            if (ev.type != EventKind::mwait) at = past(at, config_);
            break;
        default:
            at = past(at, config_);
            break;
    }
    return at ? static_cast<uint64_t>(at - config_.begin) : 0;
}

int QueryCore::master_offset(uint64_t& offset) const noexcept {
    if (!pos_) return -pte_nosync;
    const uint8_t* at = pos_;
    if (!tnt_.empty()) {
        // Past the TNT packet whose bits are being answered.
        const int k = tnt_run_packet();
        at = skip_pads(k >= 0 ? run_[k].next - run_[k].gap : tnt_end_, config_);
    } else if (flags_when_empty() & pts_event_pending) {
        // The next event, taken on a copy.
        QueryCore copy = *this;
        QueryEvent ev;
        if (copy.event(ev) >= 0) {
            offset = copy.last_event_offset_;
            return 0;
        }
        at = copy.libipt_pos();
    } else if (have_next_ && (next_ == PacketKind::tnt_8 || next_ == PacketKind::tnt_64)) {
        at = past(pos_, config_);
    }
    offset = static_cast<uint64_t>(at - config_.begin);
    return 0;
}

}  // namespace ringscope::ipt
