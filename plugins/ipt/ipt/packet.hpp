// Intel PT packets as decoded values. Type numbers follow libipt 2.0.5's enum pt_packet_type, with
// the packets it lacks (CFE, EVD, TRIG) appended.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ringscope::ipt {

enum class PacketType : uint8_t {
    invalid,
    unknown,
    pad,
    psb,
    psbend,
    fup,
    tip,
    tip_pge,
    tip_pgd,
    tnt_8,
    tnt_64,
    mode,
    pip,
    vmcs,
    cbr,
    tsc,
    tma,
    mtc,
    cyc,
    stop,
    ovf,
    mnt,
    exstop,
    mwait,
    pwre,
    pwrx,
    ptw,
    cfe,
    evd,
    trig,
};

// IP compression, as the IPBytes field encodes it (libipt's enum pt_ip_compression).
enum IpCompression : uint8_t {
    ipc_suppressed = 0,
    ipc_update_16 = 1,
    ipc_update_32 = 2,
    ipc_sext_48 = 3,
    ipc_update_48 = 4,
    ipc_full = 6,
};

enum class ModeLeaf : uint8_t { exec = 0, tsx = 1 };

enum ExecMode : uint8_t { em_unknown = 0, em_16bit = 1, em_32bit = 2, em_64bit = 3 };

struct PacketIp {
    uint8_t ipc;  // IpCompression
    uint64_t ip;  // the raw payload bytes, not yet combined with the last IP
};
struct PacketTnt {
    uint8_t bit_size;
    uint64_t payload;  // stop bit removed; the oldest branch is the highest bit
};
struct PacketMode {
    ModeLeaf leaf;
    uint8_t csl, csd, iflag;  // exec
    uint8_t intx, abrt;       // tsx
};
struct PacketPip {
    uint64_t cr3;
    uint8_t nr;
};
struct PacketTma {
    uint16_t ctc, fc;
};
struct PacketPwre {
    uint8_t state, sub_state, hw;
};
struct PacketPwrx {
    uint8_t last, deepest, interrupt, store, autonomous;
};
struct PacketPtw {
    uint8_t plc, ip;
    uint64_t payload;
};
struct PacketMwait {
    uint32_t hints, ext;
};
struct PacketCfe {
    uint8_t type, vector, ip;
};
struct PacketEvd {
    uint8_t type;
    uint64_t payload;
};
struct PacketTrig {
    uint8_t trbv, ip, icntv, mult;
    uint16_t icnt;
};

struct Packet {
    PacketType type = PacketType::invalid;
    uint8_t size = 0;
    union {
        PacketIp ip;
        PacketTnt tnt;
        PacketMode mode;
        PacketPip pip;
        uint64_t tsc;
        uint8_t cbr;
        PacketTma tma;
        uint8_t mtc;
        uint64_t cyc;
        uint64_t vmcs_base;
        uint64_t mnt;
        uint8_t exstop_ip;
        PacketMwait mwait;
        PacketPwre pwre;
        PacketPwrx pwrx;
        PacketPtw ptw;
        PacketCfe cfe;
        PacketEvd evd;
        PacketTrig trig;
    } payload{};
};

// read_fast() writes the payload as two u64 words; these are the fields it relies on.
static_assert(offsetof(PacketTnt, payload) == 8 && offsetof(PacketIp, ip) == 8, "payload word layout");
static_assert(sizeof(Packet::payload) >= 16, "payload word layout");

inline ExecMode exec_mode_of(const PacketMode& m) noexcept {
    if (m.csl) return m.csd ? em_unknown : em_64bit;
    return m.csd ? em_32bit : em_16bit;
}

// Sizes and magic numbers of the packet formats (Intel SDM vol. 3, 33.4).
inline constexpr int kPsbSize = 16;
inline constexpr int kPsbendSize = 2;
inline constexpr int kOvfSize = 2;
inline constexpr int kStopSize = 2;
inline constexpr int kPadSize = 1;
inline constexpr uint8_t kOpcExt = 0x02;
inline constexpr uint8_t kExtPsb = 0x82;

// PTW payload size for a PayloadBytes code: 4, 8, or -pte_bad_packet.
int ptw_size(uint8_t plc) noexcept;

}  // namespace ringscope::ipt
