// The packet decoder (libipt's pt_packet_decoder): synchronizes onto PSBs and reads packets one by
// one. Errors leave the position on the packet that failed.
#pragma once

#include <cstdint>

#include "ipt/block_starts.hpp"
#include "ipt/config.hpp"
#include "ipt/errors.hpp"
#include "ipt/packet.hpp"
#include "ipt/packet_fast.hpp"
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
    // The same position over config, a buffer whose first byte is byte `shift` of this one's
    // (a window moved along a file); a sync point before config's start is forgotten.
    void rebase(const Config& config, uint64_t shift) noexcept;
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
        // Blocks of 64 bytes whose packet starts are found at once (block_starts): the packets
        // are then decoded independently of each other, where walking from one to the next is a
        // chain of load opcode, load its size, add. A block ends well before stop, so every
        // packet started in it is decoded; the packet block_starts stops at goes through next().
        // SKD007's workaround looks at what follows a 2-byte CYC: next() decodes CYCs then.
        const bool long_cyc = !config_.errata.skd007;
        detail::BlockStarts blocks[2];
        int found = -1;  // the entry of blocks that holds the packets from pos_, if any
        while (stop - pos_ >= kBlock + 16) {
            const uint8_t* base = pos_;
            if (found < 0) {
                found = 0;
                detail::block_starts(blocks[0], base, long_cyc);
            }
            const detail::BlockStarts& starts = blocks[found];
            // The next block's packets are found before this block's are decoded: the two do not
            // depend on each other, so the search's chain of permutes overlaps the decoding.
            const uint8_t* after = base + starts.next;
            int following = -1;
            if (starts.next >= kBlock && stop - after >= kBlock + 16) {
                following = found ^ 1;
                detail::block_starts(blocks[following], after, long_cyc);
            }
            for (int i = 0; i < starts.count; ++i) {
                const uint8_t* at = base + starts.at[i];
                Packet packet;
                if (!read_sized(packet, at)) [[unlikely]] {
                    // A TNT-64 without a branch bit: next() reports the bad packet and stays on
                    // it. Another Packet, so that this one's address does not escape.
                    pos_ = at;
                    Packet bad;
                    return next(bad);
                }
                f(static_cast<uint64_t>(at - begin), packet);
            }
            pos_ = after;
            if (starts.next < kBlock) {
                Packet packet;
                int size = next(packet);
                if (size < 0) return size;
                f(static_cast<uint64_t>(after - begin), packet);
            }
            found = following;
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
    static constexpr int kBlock = detail::BlockStarts::kSize;

    int finish_special(Packet& packet, PacketKind kind, int size) noexcept;
    int handle_skd007(Packet& packet) noexcept;

    Config config_;
    const uint8_t* pos_ = nullptr;
    const uint8_t* sync_ = nullptr;
};

}  // namespace ringscope::ipt
