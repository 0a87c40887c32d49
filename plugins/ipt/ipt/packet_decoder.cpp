#include "ipt/packet_decoder.hpp"

#include "ipt/psb_search.hpp"

namespace ringscope::ipt {

int PacketDecoder::sync_forward() noexcept {
    const uint8_t* begin = config_.begin;
    const uint8_t* pos = pos_ ? pos_ : begin;
    const uint8_t* sync = sync_;
    if (pos == sync) pos += kPsbSize;
    bool master = config_.packets == PacketSet::full;
    if (master) {
        if (pos < begin) return -pte_internal;
        // libipt master starts a bit earlier to find a PSB partly consumed by a preceding packet.
        auto space = pos - begin;
        if (space >= kPsbSize) space = kPsbSize - 1;
        pos -= space;
    }
    int status = ipt::sync_forward(&sync, pos, config_, master);
    if (status < 0) return status;
    sync_ = pos_ = sync;
    return 0;
}

int PacketDecoder::sync_backward() noexcept {
    const uint8_t* pos = pos_ ? pos_ : config_.end;
    const uint8_t* sync = nullptr;
    int status = ipt::sync_backward(&sync, pos, config_);
    if (status < 0) return status;
    sync_ = pos_ = sync;
    return 0;
}

int PacketDecoder::sync_set(uint64_t offset) noexcept {
    const uint8_t* begin = config_.begin;
    if (static_cast<uint64_t>(config_.end - begin) < offset) return -pte_eos;
    sync_ = pos_ = begin + offset;
    return 0;
}

void PacketDecoder::rebase(const Config& config, uint64_t shift) noexcept {
    auto move = [&](const uint8_t* p) -> const uint8_t* {
        if (!p) return nullptr;
        const auto at = static_cast<uint64_t>(p - config_.begin);
        return at < shift ? nullptr : config.begin + (at - shift);
    };
    pos_ = move(pos_);
    sync_ = move(sync_);
    config_ = config;
}

int PacketDecoder::get_offset(uint64_t& offset) const noexcept {
    if (!pos_) return -pte_nosync;
    offset = static_cast<uint64_t>(pos_ - config_.begin);
    return 0;
}

int PacketDecoder::get_sync_offset(uint64_t& offset) const noexcept {
    if (!sync_) return -pte_nosync;
    offset = static_cast<uint64_t>(sync_ - config_.begin);
    return 0;
}

// SKD007: a 2-byte CYC whose payload looks like an ext opcode, followed by what looks like an OVF,
// is the OVF overlapped by a partial CYC: report the OVF.
int PacketDecoder::handle_skd007(Packet& packet) noexcept {
    if (packet.size != 2) return 0;
    auto payload = static_cast<uint16_t>(packet.payload.cyc);
    if ((payload & ~0x1f) != 0x20) return 0;
    const uint8_t* p = pos_ + packet.size;
    if (config_.end <= p) return 0;
    if (*p != 0xf3) return 0;
    pos_ += 1;
    packet.type = PacketType::ovf;
    packet.size = kOvfSize;
    return kOvfSize;
}

// The rare cases of next(): errors (with the SKZ84 workaround) and the SKD007 check on CYC.
int PacketDecoder::finish_special(Packet& packet, PacketKind kind, int size) noexcept {
    if (size < 0) {
        // SKZ84: reserved TMA bits may be set by VMX TSC scaling; report an invalid packet.
        if (kind == PacketKind::tma && size == -pte_bad_packet && config_.errata.skz84) {
            packet.type = PacketType::invalid;
            packet.size = 7 + 1;
            pos_ += packet.size;
            return packet.size;
        }
        return size;
    }
    if (kind == PacketKind::cyc && config_.errata.skd007) {
        int s = handle_skd007(packet);
        if (s != 0) size = s;
    }
    pos_ += size;
    return size;
}

}  // namespace ringscope::ipt
