// Decoding one packet at a position: a table maps the opcode (and the extended opcode) to a packet
// kind, and one switch decodes it, with libipt's checks and error codes: pte_bad_opc for an unknown
// opcode, pte_bad_packet for a bad payload, pte_eos for a packet cut by the end of the buffer.
// Everything here is inline: it is the hot path of every decoder (whose fast paths for the most
// frequent packets are packet_fast.hpp's).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ipt/config.hpp"
#include "ipt/errors.hpp"
#include "ipt/packet.hpp"

namespace ringscope::ipt {

// What an opcode (with its extension) names; the query decoder dispatches on this too.
enum class PacketKind : uint8_t {
    bad,  // unknown opcode
    pad,
    psb,
    psbend,
    tnt_8,
    tnt_64,
    tip,
    tip_pge,
    tip_pgd,
    fup,
    mode,
    pip,
    ovf,
    tsc,
    cbr,
    tma,
    mtc,
    cyc,
    stop,
    vmcs,
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

namespace detail {

using Kinds = std::array<PacketKind, 256>;

// The first opcode byte. 0x02 (ext) is marked psb here and resolved by the second table.
constexpr Kinds make_opcode_table(bool full) {
    Kinds t{};
    for (int i = 0; i < 256; ++i) {
        auto opc = static_cast<uint8_t>(i);
        PacketKind k = PacketKind::bad;
        if ((opc & 0x01) == 0x00)
            k = PacketKind::tnt_8;
        else if ((opc & 0x03) == 0x03)
            k = PacketKind::cyc;
        else if ((opc & 0x1f) == 0x0d)
            k = PacketKind::tip;
        else if ((opc & 0x1f) == 0x1d)
            k = PacketKind::fup;
        else if ((opc & 0x1f) == 0x11)
            k = PacketKind::tip_pge;
        else if ((opc & 0x1f) == 0x01)
            k = PacketKind::tip_pgd;
        t[static_cast<size_t>(i)] = k;
    }
    t[0x00] = PacketKind::pad;
    t[0x02] = PacketKind::psb;  // ext: see the ext table
    t[0x99] = PacketKind::mode;
    t[0x19] = PacketKind::tsc;
    t[0x59] = PacketKind::mtc;
    if (full) t[0xd9] = PacketKind::trig;
    return t;
}

constexpr Kinds make_ext_table(bool full) {
    Kinds t{};
    for (int i = 0; i < 256; ++i)
        t[static_cast<size_t>(i)] = (i & 0x1f) == 0x12 ? PacketKind::ptw : PacketKind::bad;
    t[0x82] = PacketKind::psb;
    t[0xa3] = PacketKind::tnt_64;
    t[0x43] = PacketKind::pip;
    t[0xf3] = PacketKind::ovf;
    t[0x23] = PacketKind::psbend;
    t[0x03] = PacketKind::cbr;
    t[0x73] = PacketKind::tma;
    t[0x83] = PacketKind::stop;
    t[0xc8] = PacketKind::vmcs;
    t[0xc3] = PacketKind::mnt;  // ext2: the third byte must be 0x88
    t[0x62] = PacketKind::exstop;
    t[0xe2] = PacketKind::exstop;
    t[0xc2] = PacketKind::mwait;
    t[0x22] = PacketKind::pwre;
    t[0xa2] = PacketKind::pwrx;
    if (full) {
        t[0x13] = PacketKind::cfe;
        t[0x53] = PacketKind::evd;
    }
    return t;
}

inline constexpr Kinds kOpcFull = make_opcode_table(true);
inline constexpr Kinds kOpcOld = make_opcode_table(false);
inline constexpr Kinds kExtFull = make_ext_table(true);
inline constexpr Kinds kExtOld = make_ext_table(false);

// Little-endian value of n (<= 8) bytes; the caller has checked that they are in the buffer.
inline uint64_t read_value(const uint8_t* p, int n, const uint8_t* end) noexcept {
    if (end - p >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        return n == 8 ? v : v & ((1ull << (8 * n)) - 1);
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
    return v;
}

// The IP payload size for each IPBytes value; -1 for the reserved ones.
inline constexpr std::array<int8_t, 8> kIpSize{0, 2, 4, 6, 6, -1, 8, -1};

inline int tnt_fill(PacketTnt& tnt, uint64_t payload) noexcept {
    if (payload < 2) return -pte_bad_packet;  // no bit below the stop bit
    int bits = 63 - __builtin_clzll(payload);
    tnt.bit_size = static_cast<uint8_t>(bits);
    tnt.payload = payload & ~(1ull << bits);
    return 0;
}

inline int need(const uint8_t* pos, const uint8_t* end, int size) noexcept {
    return end - pos < size ? -pte_eos : size;
}

}  // namespace detail

// The kind of the packet at pos, without reading its payload: pte_eos when the opcode bytes are
// cut; pte_nosync when pos is outside the buffer.
inline int fetch_kind(PacketKind& kind, const uint8_t* pos, const Config& config) noexcept {
    using namespace detail;
    const uint8_t* end = config.end;
    if (!pos || pos < config.begin || end < pos) return -pte_nosync;
    if (pos == end) return -pte_eos;
    bool full = config.packets == PacketSet::full;
    uint8_t opc = pos[0];
    kind = (full ? kOpcFull : kOpcOld)[opc];
    if (opc != kOpcExt) return 0;
    if (end - pos < 2) return -pte_eos;
    kind = (full ? kExtFull : kExtOld)[pos[1]];
    if (kind == PacketKind::mnt) {
        if (end - pos < 3) return -pte_eos;
        if (pos[2] != 0x88) kind = PacketKind::bad;
    }
    return 0;
}

namespace detail {

// The packet's type and size into pk; its size.
[[gnu::always_inline]] inline int sized(Packet& pk, PacketType type, int size) noexcept {
    pk.type = type;
    pk.size = static_cast<uint8_t>(size);
    return size;
}

// The payloads that take more than a read_value each (read_packet_kind does the others): the
// size, or a negative pte_* code.
[[gnu::always_inline]] inline int read_ip(Packet& pk, PacketKind kind, const uint8_t* pos,
                                          const uint8_t* end) noexcept {
    uint8_t ipc = pos[0] >> 5;
    int n = kIpSize[ipc];
    if (n < 0) return -pte_bad_packet;
    if (end - (pos + 1) < n) return -pte_eos;
    pk.payload.ip.ipc = ipc;
    pk.payload.ip.ip = n ? read_value(pos + 1, n, end) : 0;
    static constexpr PacketType kTypes[] = {PacketType::tip, PacketType::tip_pge, PacketType::tip_pgd,
                                            PacketType::fup};
    return sized(pk, kTypes[static_cast<int>(kind) - static_cast<int>(PacketKind::tip)], n + 1);
}

[[gnu::always_inline]] inline int read_psb(Packet& pk, const uint8_t* pos, const uint8_t* end) noexcept {
    if (int size = need(pos, end, kPsbSize); size < 0) return size;
    for (int i = 2; i < kPsbSize; i += 2)
        if (pos[i] != kOpcExt || pos[i + 1] != kExtPsb) return -pte_bad_packet;
    return sized(pk, PacketType::psb, kPsbSize);
}

[[gnu::always_inline]] inline int read_mode(Packet& pk, const uint8_t* pos, const uint8_t* end) noexcept {
    if (int size = need(pos, end, 2); size < 0) return size;
    uint8_t payload = pos[1];
    uint8_t leaf = payload & 0xe0;
    uint8_t bits = payload & 0x1f;
    PacketMode& m = pk.payload.mode;
    m = PacketMode{};
    if (leaf == 0x00) {
        m.leaf = ModeLeaf::exec;
        m.csl = bits & 1;
        m.csd = (bits >> 1) & 1;
        m.iflag = (bits >> 2) & 1;
    } else if (leaf == 0x20) {
        m.leaf = ModeLeaf::tsx;
        m.intx = bits & 1;
        m.abrt = (bits >> 1) & 1;
    } else {
        return -pte_bad_packet;
    }
    return sized(pk, PacketType::mode, 2);
}

[[gnu::always_inline]] inline int read_tma(Packet& pk, const uint8_t* pos, const uint8_t* end) noexcept {
    if (int size = need(pos, end, 7); size < 0) return size;
    auto ctc = static_cast<uint16_t>(pos[2] | (pos[3] << 8));
    auto fc = static_cast<uint16_t>(pos[5] | (pos[6] << 8));
    if (fc & ~0x1ff) return -pte_bad_packet;
    if (pos[4]) return -pte_bad_packet;
    pk.payload.tma.ctc = ctc;
    pk.payload.tma.fc = fc;
    return sized(pk, PacketType::tma, 7);
}

[[gnu::always_inline]] inline int read_cyc(Packet& pk, const uint8_t* pos, const uint8_t* end) noexcept {
    const uint8_t* p = pos;
    uint8_t first = *p++;
    bool ext = first & 0x04;
    uint64_t value = first >> 3;
    unsigned shl = 5;
    while (ext) {
        if (end <= p) return -pte_eos;
        uint64_t bits = *p++;
        ext = bits & 0x01;
        bits >>= 1;
        bits <<= shl;
        shl += 7;
        if (shl > 64) return -pte_bad_packet;
        value |= bits;
    }
    pk.payload.cyc = value;
    return sized(pk, PacketType::cyc, static_cast<int>(p - pos));
}

[[gnu::always_inline]] inline int read_pwrx(Packet& pk, const uint8_t* pos, const uint8_t* end) noexcept {
    if (int size = need(pos, end, 7); size < 0) return size;
    uint64_t payload = read_value(pos + 2, 5, end);
    PacketPwrx& x = pk.payload.pwrx;
    x.last = static_cast<uint8_t>((payload & 0xf0) >> 4);
    x.deepest = static_cast<uint8_t>(payload & 0xf);
    x.interrupt = (payload & 0x100) ? 1 : 0;
    x.store = (payload & 0x400) ? 1 : 0;
    x.autonomous = (payload & 0x800) ? 1 : 0;
    return sized(pk, PacketType::pwrx, 7);
}

[[gnu::always_inline]] inline int read_ptw(Packet& pk, const uint8_t* pos, const uint8_t* end) noexcept {
    uint8_t opc = pos[1];
    uint8_t plc = (opc >> 5) & 0x3;
    int n = plc == 0 ? 4 : plc == 1 ? 8 : -pte_bad_packet;
    if (n < 0) return n;
    if (end - (pos + 2) < n) return -pte_eos;
    pk.payload.ptw.payload = read_value(pos + 2, n, end);
    pk.payload.ptw.plc = plc;
    pk.payload.ptw.ip = (opc & 0x80) ? 1 : 0;
    return sized(pk, PacketType::ptw, n + 2);
}

[[gnu::always_inline]] inline int read_trig(Packet& pk, const uint8_t* pos, const uint8_t* end) noexcept {
    int size = need(pos, end, 3);
    if (size < 0) return size;
    PacketTrig& t = pk.payload.trig;
    t.icnt = 0;
    if (pos[1] & 0x40) {
        if ((size = need(pos, end, 5)) < 0) return size;
        t.icnt = static_cast<uint16_t>(pos[3] | (pos[4] << 8));
    }
    t.ip = (pos[1] >> 7) & 1;
    t.icntv = (pos[1] >> 6) & 1;
    t.mult = (pos[1] >> 5) & 1;
    t.trbv = pos[2];
    return sized(pk, PacketType::trig, size);
}

// EXSTOP, MWAIT, PWRE and PWRX.
[[gnu::always_inline]] inline int read_power(Packet& pk, PacketKind kind, const uint8_t* pos,
                                             const uint8_t* end) noexcept {
    auto& p = pk.payload;
    int size;
    switch (kind) {
        case PacketKind::exstop:
            p.exstop_ip = (pos[1] & 0x80) ? 1 : 0;
            return sized(pk, PacketType::exstop, 2);
        case PacketKind::mwait:
            if ((size = need(pos, end, 10)) < 0) return size;
            p.mwait.hints = static_cast<uint32_t>(read_value(pos + 2, 4, end));
            p.mwait.ext = static_cast<uint32_t>(read_value(pos + 6, 4, end));
            return sized(pk, PacketType::mwait, 10);
        case PacketKind::pwre: {
            if ((size = need(pos, end, 4)) < 0) return size;
            uint64_t payload = read_value(pos + 2, 2, end);
            p.pwre.state = static_cast<uint8_t>((payload & 0xf000) >> 12);
            p.pwre.sub_state = static_cast<uint8_t>((payload & 0xf00) >> 8);
            p.pwre.hw = (payload & 0x8) ? 1 : 0;
            return sized(pk, PacketType::pwre, 4);
        }
        case PacketKind::pwrx:
            return read_pwrx(pk, pos, end);
        default:
            return -pte_internal;
    }
}

// Event Trace's CFE and EVD, and TRIG.
[[gnu::always_inline]] inline int read_event_trace(Packet& pk, PacketKind kind, const uint8_t* pos,
                                                   const uint8_t* end) noexcept {
    auto& p = pk.payload;
    int size;
    switch (kind) {
        case PacketKind::cfe:
            if ((size = need(pos, end, 4)) < 0) return size;
            p.cfe.type = pos[2] & 0x1f;
            p.cfe.vector = pos[3];
            p.cfe.ip = (pos[2] & 0x80) ? 1 : 0;
            return sized(pk, PacketType::cfe, 4);
        case PacketKind::evd:
            if ((size = need(pos, end, 11)) < 0) return size;
            p.evd.type = pos[2] & 0x1f;
            p.evd.payload = read_value(pos + 3, 8, end);
            return sized(pk, PacketType::evd, 11);
        case PacketKind::trig:
            return read_trig(pk, pos, end);
        default:
            return -pte_internal;
    }
}

}  // namespace detail

// Decodes a packet whose kind is already known (begin <= pos < end): its size, or a negative
// pte_* code.
[[gnu::always_inline]] inline int read_packet_kind(Packet& pk, PacketKind kind, const uint8_t* pos,
                                                   const Config& config) noexcept {
    using namespace detail;
    const uint8_t* end = config.end;
    auto& p = pk.payload;
    int size;
    switch (kind) {
        case PacketKind::bad:
            return -pte_bad_opc;
        case PacketKind::pad:
            return sized(pk, PacketType::pad, 1);
        case PacketKind::tnt_8:
            if (tnt_fill(p.tnt, pos[0] >> 1) < 0) return -pte_bad_packet;
            return sized(pk, PacketType::tnt_8, 1);
        case PacketKind::tip:
        case PacketKind::tip_pge:
        case PacketKind::tip_pgd:
        case PacketKind::fup:
            return read_ip(pk, kind, pos, end);
        case PacketKind::psb:
            return read_psb(pk, pos, end);
        case PacketKind::psbend:
            return sized(pk, PacketType::psbend, 2);
        case PacketKind::ovf:
            return sized(pk, PacketType::ovf, 2);
        case PacketKind::stop:
            return sized(pk, PacketType::stop, 2);
        case PacketKind::tnt_64:
            if ((size = need(pos, end, 8)) < 0) return size;
            if (tnt_fill(p.tnt, read_value(pos + 2, 6, end)) < 0) return -pte_bad_packet;
            return sized(pk, PacketType::tnt_64, 8);
        case PacketKind::mode:
            return read_mode(pk, pos, end);
        case PacketKind::pip: {
            if ((size = need(pos, end, 8)) < 0) return size;
            uint64_t payload = read_value(pos + 2, 6, end);
            p.pip.nr = payload & 1;
            p.pip.cr3 = (payload >> 1) << 5;
            return sized(pk, PacketType::pip, 8);
        }
        case PacketKind::tsc:
            if ((size = need(pos, end, 8)) < 0) return size;
            p.tsc = read_value(pos + 1, 7, end);
            return sized(pk, PacketType::tsc, 8);
        case PacketKind::cbr:
            if ((size = need(pos, end, 4)) < 0) return size;
            p.cbr = pos[2];
            return sized(pk, PacketType::cbr, 4);
        case PacketKind::tma:
            return read_tma(pk, pos, end);
        case PacketKind::mtc:
            if ((size = need(pos, end, 2)) < 0) return size;
            p.mtc = pos[1];
            return sized(pk, PacketType::mtc, 2);
        case PacketKind::cyc:
            return read_cyc(pk, pos, end);
        case PacketKind::vmcs:
            if ((size = need(pos, end, 7)) < 0) return size;
            p.vmcs_base = read_value(pos + 2, 5, end) << 12;
            return sized(pk, PacketType::vmcs, 7);
        case PacketKind::mnt:
            if ((size = need(pos, end, 11)) < 0) return size;
            p.mnt = read_value(pos + 3, 8, end);
            return sized(pk, PacketType::mnt, 11);
        case PacketKind::exstop:
        case PacketKind::mwait:
        case PacketKind::pwre:
        case PacketKind::pwrx:
            return read_power(pk, kind, pos, end);
        case PacketKind::ptw:
            return read_ptw(pk, pos, end);
        case PacketKind::cfe:
        case PacketKind::evd:
        case PacketKind::trig:
            return read_event_trace(pk, kind, pos, end);
    }
    return -pte_internal;
}

// Decodes the packet at pos (begin <= pos <= end): its size, or a negative pte_* code.
inline int read_packet(Packet& packet, const uint8_t* pos, const Config& config) noexcept {
    PacketKind kind;
    int status = fetch_kind(kind, pos, config);
    if (status < 0) return status;
    return read_packet_kind(packet, kind, pos, config);
}

}  // namespace ringscope::ipt
