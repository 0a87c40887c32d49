// The packet decoder (libipt's pt_packet_decoder): synchronizes onto PSBs and reads packets one by
// one. Errors leave the position on the packet that failed.
#pragma once

#include <cstdint>

#include "ipt/config.hpp"
#include "ipt/errors.hpp"
#include "ipt/packet.hpp"
#include "ipt/packet_reader.hpp"

namespace ringscope::ipt {

class PacketDecoder {
  public:
    explicit PacketDecoder(const Config& config) noexcept : config_(config) {}

    const Config& config() const noexcept { return config_; }

    int sync_forward() noexcept;
    int sync_backward() noexcept;
    // Any offset in the buffer (or its end); no PSB is needed.
    int sync_set(uint64_t offset) noexcept;
    int get_offset(uint64_t& offset) const noexcept;
    int get_sync_offset(uint64_t& offset) const noexcept;

    // The next packet: its size, or a negative pte_* code.
    int next(Packet& packet) noexcept {
        if (!pos_) return -pte_nosync;
        if (config_.end - pos_ >= 9) [[likely]] {
            int fast = read_fast(packet, pos_);
            if (fast > 0) {
                pos_ += fast;
                return fast;
            }
        }
        PacketKind kind;
        int size = fetch_kind(kind, pos_, config_);
        if (size < 0) return size;
        size = read_packet_kind(packet, kind, pos_, config_);
        if (size < 0 || kind == PacketKind::cyc || kind == PacketKind::tma) [[unlikely]]
            return finish_special(packet, kind, size);
        pos_ += size;
        return size;
    }

    // Decodes packets until one fails, calling f(offset, packet) for each: the batch form of
    // next(), one inlined loop with no call per packet. Returns the error that stopped it (the
    // position stays on that packet), e.g. -pte_eos at the end, or 0 when the next packet would
    // start at or after stop (a position in the buffer; its end by default).
    template <class F>
    int for_each(F&& f, const uint8_t* stop = nullptr) noexcept {
        if (!pos_) return -pte_nosync;
        const uint8_t* begin = config_.begin;
        const uint8_t* end = config_.end;
        if (!stop || stop > end) stop = end;
        // Blocks whose packet sizes are computed for every byte at once (fast_sizes): the walk
        // from one packet to the next is then one load and an add, where it is a chain of load
        // opcode, load its table entry, add. A block ends well before stop, so every packet
        // started in it is decoded; packets the sizes do not cover go through next().
        while (stop - pos_ >= kBlock + 16) {
            const uint8_t* base = pos_;
            alignas(16) uint8_t sizes[kBlock];
            detail::fast_sizes(sizes, base, kBlock);
            const uint8_t* at = base;
            do {
                Packet packet;
                int size = sizes[at - base];
                if (size) [[likely]] {
                    read_fast(packet, at);
                    f(static_cast<uint64_t>(at - begin), packet);
                    at += size;
                } else if ((size = read_fast(packet, at)) > 0) {
                    // TNT-64: its opcode byte alone does not tell.
                    f(static_cast<uint64_t>(at - begin), packet);
                    at += size;
                } else {
                    pos_ = at;
                    size = next(packet);
                    if (size < 0) return size;
                    f(static_cast<uint64_t>(at - begin), packet);
                    at = pos_;
                }
            } while (at < base + kBlock);
            pos_ = at;
        }
        for (;;) {
            Packet packet;
            const uint8_t* at = pos_;
            if (at >= stop) [[unlikely]] {
                if (at < end) return 0;
            }
            int size = end - at >= 9 ? read_fast(packet, at) : 0;
            if (size > 0) [[likely]] {
                pos_ = at + size;
            } else {
                size = next(packet);
                if (size < 0) return size;
            }
            f(static_cast<uint64_t>(at - begin), packet);
        }
    }

  private:
    static constexpr int kBlock = 64;

    int finish_special(Packet& packet, PacketKind kind, int size) noexcept;
    int handle_skd007(Packet& packet) noexcept;

    Config config_;
    const uint8_t* pos_ = nullptr;
    const uint8_t* sync_ = nullptr;
};

}  // namespace ringscope::ipt
