// The last IP: IP packets carry compressed updates of it (libipt's pt_last_ip).
#pragma once

#include <cstdint>

#include "ipt/errors.hpp"
#include "ipt/packet.hpp"

namespace ringscope::ipt {

struct LastIp {
    uint64_t ip = 0;
    bool have_ip = false;
    bool suppressed = false;

    bool operator==(const LastIp&) const = default;

    void init() noexcept { *this = LastIp{}; }

    // 0; -pte_noip before any IP; -pte_ip_suppressed after a suppressed update.
    int query(uint64_t* out) const noexcept {
        if (!have_ip) {
            if (out) *out = 0;
            return -pte_noip;
        }
        if (suppressed) {
            if (out) *out = 0;
            return -pte_ip_suppressed;
        }
        if (out) *out = ip;
        return 0;
    }

    int update(const PacketIp& p) noexcept {
        switch (p.ipc) {
            case ipc_suppressed:
                suppressed = true;
                return 0;
            case ipc_sext_48:
                ip = sext48(p.ip);
                break;
            case ipc_update_16:
                ip = (ip & ~0xffffull) | (p.ip & 0xffffull);
                break;
            case ipc_update_32:
                ip = (ip & ~0xffffffffull) | (p.ip & 0xffffffffull);
                break;
            case ipc_update_48:
                ip = (ip & ~0xffffffffffffull) | (p.ip & 0xffffffffffffull);
                break;
            case ipc_full:
                ip = p.ip;
                break;
            default:
                return -pte_bad_packet;
        }
        have_ip = true;
        suppressed = false;
        return 0;
    }

    // The updates that replace the low bits and keep the rest (16, 32, 48 bits, full), by mask:
    // no branch on which one, which random IP sizes would mispredict.
    static constexpr unsigned kMaskedIpcs =
        1u << ipc_update_16 | 1u << ipc_update_32 | 1u << ipc_update_48 | 1u << ipc_full;
    static uint64_t update_mask(unsigned ipc) noexcept {
        static constexpr uint64_t kMasks[8] = {0, 0xffff, 0xffffffff, 0, 0xffffffffffff, 0, ~0ull, 0};
        return kMasks[ipc & 7];
    }
    // For an ipc of kMaskedIpcs: raw holds the payload's bytes in its low bits (more may follow).
    void update_masked(unsigned ipc, uint64_t raw) noexcept {
        uint64_t mask = update_mask(ipc);
        ip = (ip & ~mask) | (raw & mask);
        have_ip = true;
        suppressed = false;
    }

    static uint64_t sext48(uint64_t v) noexcept {
        return (v & (1ull << 47)) ? (v | ~0xffffffffffffull) : (v & 0xffffffffffffull);
    }
};

}  // namespace ringscope::ipt
