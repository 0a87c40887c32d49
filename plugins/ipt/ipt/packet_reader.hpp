// Decoding one packet at a position: a table maps the opcode (and the extended opcode) to a packet
// kind, and one switch decodes it, with libipt's checks and error codes: pte_bad_opc for an unknown
// opcode, pte_bad_packet for a bad payload, pte_eos for a packet cut by the end of the buffer.
// Everything here is inline: it is the hot path of every decoder.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// The table-driven fast path for the packets that dominate real traces: PAD, TNT-8, the IP
// packets (TIP, TIP.PGE, TIP.PGD, FUP), MTC and one-byte CYC. Their payloads are written as two
// words, at offsets 0 and 8 of the payload union, which is where each of these packets keeps its
// fields (PacketTnt and PacketIp: a byte at 0 and a u64 at 8; MTC: a byte at 0; CYC: a u64 at 0).
// Each opcode's entry holds the words' constant parts (TNT bits, IPC, CYC value) and masks that
// take the rest from the bytes after the opcode (the IP, the MTC byte): no branch on the kind.
// 32 bytes, so that an entry's address is the opcode shifted: the decode loop's critical path is
// load opcode, load size, advance.
struct alignas(32) FastEntry {
    uint64_t word0;  // payload word at 0: bits from the opcode
    uint64_t word8;  // payload word at 8
    uint64_t mask8;  // bytes after the opcode that go into word8 (the IP)
    uint8_t mask0;   // the byte after the opcode that goes into word0 (MTC)
    uint8_t size;    // whole packet; 0: not a fast packet
    uint8_t type;    // PacketType
};
static_assert(sizeof(FastEntry) == 32, "FastEntry is indexed by a shift");

constexpr std::array<FastEntry, 256> make_fast_table() {
    std::array<FastEntry, 256> t{};
    for (int i = 0; i < 256; ++i) {
        auto opc = static_cast<uint8_t>(i);
        FastEntry e{};
        PacketKind k = kOpcFull[opc];
        if (opc == 0x00) {
            e.size = 1;
            e.type = static_cast<uint8_t>(PacketType::pad);
        } else if (opc != kOpcExt && k == PacketKind::tnt_8) {
            // TNT-8 opcodes have a stop bit below bit 7, so at least one branch.
            uint64_t tnt = opc >> 1;
            int bits = 63;
            while (!(tnt >> bits)) --bits;
            e.word0 = static_cast<uint64_t>(bits);
            e.word8 = tnt & ~(1ull << bits);
            e.size = 1;
            e.type = static_cast<uint8_t>(PacketType::tnt_8);
        } else if (k == PacketKind::mtc) {
            e.mask0 = 0xff;
            e.size = 2;
            e.type = static_cast<uint8_t>(PacketType::mtc);
        } else if (k == PacketKind::cyc && !(opc & 0x04)) {
            e.word0 = opc >> 3;
            e.size = 1;
            e.type = static_cast<uint8_t>(PacketType::cyc);
        } else if (k == PacketKind::tip || k == PacketKind::tip_pge || k == PacketKind::tip_pgd ||
                   k == PacketKind::fup) {
            int n = kIpSize[opc >> 5];
            if (n >= 0) {
                PacketType type = k == PacketKind::tip       ? PacketType::tip
                                  : k == PacketKind::tip_pge ? PacketType::tip_pge
                                  : k == PacketKind::tip_pgd ? PacketType::tip_pgd
                                                             : PacketType::fup;
                e.word0 = opc >> 5;
                e.mask8 = n ? ~0ull >> (64 - 8 * n) : 0;
                e.size = static_cast<uint8_t>(1 + n);
                e.type = static_cast<uint8_t>(type);
            }
        }
        t[static_cast<size_t>(i)] = e;
    }
    return t;
}

inline constexpr std::array<FastEntry, 256> kFast = make_fast_table();

// kFast[p[i]].size for n bytes (a multiple of 16), sixteen at a time: 1 for PAD, TNT-8 and a
// one-byte CYC, 2 for MTC, 1 + the IP bytes for TIP, TIP.PGE, TIP.PGD and FUP with a valid IP
// compression, 0 for the rest (TNT-64 among them: its size needs the second byte).
inline void fast_sizes(uint8_t* out, const uint8_t* p, int n) noexcept {
#if !defined(__SSE2__)
    for (int i = 0; i < n; ++i) out[i] = kFast[p[i]].size;
#else
    const __m128i k1 = _mm_set1_epi8(1), k0x02 = _mm_set1_epi8(0x02), k7 = _mm_set1_epi8(7),
                  k3 = _mm_set1_epi8(3), k1f = _mm_set1_epi8(0x1f),
                  ke0 = _mm_set1_epi8(static_cast<char>(0xe0));
    for (int i = 0; i < n; i += 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        __m128i zero = _mm_setzero_si128();
        // PAD and TNT-8 (bit 0 clear), not the extended opcode; one-byte CYC.
        __m128i one = _mm_andnot_si128(_mm_cmpeq_epi8(v, k0x02), _mm_cmpeq_epi8(_mm_and_si128(v, k1), zero));
        one = _mm_or_si128(one, _mm_cmpeq_epi8(_mm_and_si128(v, k7), k3));
        __m128i size = _mm_and_si128(one, k1);
        size = _mm_or_si128(size, _mm_and_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x59)), _mm_set1_epi8(2)));
        __m128i low = _mm_and_si128(v, k1f);
        __m128i ip = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(low, _mm_set1_epi8(0x01)), _mm_cmpeq_epi8(low, _mm_set1_epi8(0x0d))),
            _mm_or_si128(_mm_cmpeq_epi8(low, _mm_set1_epi8(0x11)), _mm_cmpeq_epi8(low, _mm_set1_epi8(0x1d))));
        __m128i hi = _mm_and_si128(v, ke0);
        __m128i ipsize = _mm_and_si128(_mm_cmpeq_epi8(hi, zero), k1);
        ipsize = _mm_or_si128(ipsize, _mm_and_si128(_mm_cmpeq_epi8(hi, _mm_set1_epi8(0x20)), k3));
        ipsize =
            _mm_or_si128(ipsize, _mm_and_si128(_mm_cmpeq_epi8(hi, _mm_set1_epi8(0x40)), _mm_set1_epi8(5)));
        __m128i seven = _mm_or_si128(_mm_cmpeq_epi8(hi, _mm_set1_epi8(0x60)),
                                     _mm_cmpeq_epi8(hi, _mm_set1_epi8(static_cast<char>(0x80))));
        ipsize = _mm_or_si128(ipsize, _mm_and_si128(seven, k7));
        ipsize = _mm_or_si128(
            ipsize,
            _mm_and_si128(_mm_cmpeq_epi8(hi, _mm_set1_epi8(static_cast<char>(0xc0))), _mm_set1_epi8(9)));
        size = _mm_or_si128(size, _mm_and_si128(ip, ipsize));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), size);
    }
#endif
}

// The payload as the two words at offsets 0 and 8 (see FastEntry).
[[gnu::always_inline]] inline void write_words(Packet& pk, uint64_t word0, uint64_t word8) noexcept {
    auto* words = reinterpret_cast<unsigned char*>(&pk.payload);
    std::memcpy(words, &word0, 8);
    std::memcpy(words + 8, &word8, 8);
}

}  // namespace detail

// Decodes a PAD, TNT-8, IP, MTC, one-byte CYC or TNT-64 packet at pos without branching on its
// kind (TNT-64 aside); 0 for any other packet (use read_packet then). 9 bytes must be readable.
[[gnu::always_inline]] inline int read_fast(Packet& pk, const uint8_t* pos) noexcept {
    using namespace detail;
    uint8_t opc = pos[0];
    uint64_t raw;
    std::memcpy(&raw, pos + 1, 8);
    const FastEntry& e = kFast[opc];
    if (e.size == 0) [[unlikely]] {
        // TNT-64 (02 a3): six payload bytes with a stop bit.
        if (opc != kOpcExt || pos[1] != 0xa3) return 0;
        uint64_t tnt = (raw >> 8) & 0xffffffffffffull;
        if (tnt < 2) return 0;
        auto bits = static_cast<uint8_t>(63 - __builtin_clzll(tnt));
        pk.type = PacketType::tnt_64;
        pk.size = 8;
        pk.payload.tnt.bit_size = bits;
        pk.payload.tnt.payload = tnt & ~(1ull << bits);
        return 8;
    }
    uint64_t word0 = e.word0 | (raw & e.mask0);
    uint64_t word8 = e.word8 | (raw & e.mask8);
    pk.type = static_cast<PacketType>(e.type);
    pk.size = e.size;
    write_words(pk, word0, word8);
    return e.size;
}

namespace detail {

// The packet type of each opcode for read_sized: kFast's, TNT-64 for the extended opcode (which
// block_starts sizes only as 02 a3), CYC for the CYC opcodes with an extension.
constexpr std::array<uint8_t, 256> make_sized_types() {
    std::array<uint8_t, 256> t{};
    for (size_t i = 0; i < t.size(); ++i) t[i] = kFast[i].type;
    t[kOpcExt] = static_cast<uint8_t>(PacketType::tnt_64);
    for (size_t i = 7; i < t.size(); i += 8) t[i] = static_cast<uint8_t>(PacketType::cyc);
    return t;
}

inline constexpr std::array<uint8_t, 256> kSizedType = make_sized_types();

}  // namespace detail

// read_fast for a packet that detail::block_starts found: a fast packet, a TNT-64 or a CYC of 2
// or 3 bytes, decoded with no branch on which (the packet mix would make it mispredict); false
// for a TNT-64 without a branch bit, a bad packet for the general decode. 9 bytes must be
// readable.
[[gnu::always_inline]] inline bool read_sized(Packet& pk, const uint8_t* pos) noexcept {
    using namespace detail;
    uint8_t opc = pos[0];
    uint64_t raw;
    std::memcpy(&raw, pos + 1, 8);
    const FastEntry& e = kFast[opc];  // all zero for the ext opcode and a CYC with an extension
    uint64_t word0 = e.word0 | (raw & e.mask0);
    uint64_t word8 = e.word8 | (raw & e.mask8);
    uint64_t size = e.size;
    // TNT-64: six payload bytes with a stop bit.
    uint64_t tnt = (raw >> 8) & 0xffffffffffffull;
    auto bits = static_cast<uint64_t>(63 - __builtin_clzll(tnt | 1));
    uint64_t tnt64 = uint64_t{0} - static_cast<uint64_t>(opc == kOpcExt);
    word0 = (word0 & ~tnt64) | (bits & tnt64);
    word8 = (word8 & ~tnt64) | (tnt & ~(1ull << bits) & tnt64);
    size |= 8 & tnt64;
    // CYC of 2 or 3 bytes: 5 bits from the opcode, 7 from each further byte.
    uint64_t cyc = uint64_t{0} - static_cast<uint64_t>((opc & 7) == 7);
    uint64_t more = raw & 1;
    uint64_t value = (opc >> 3) | ((raw & 0xfe) << 4) | ((((raw >> 8) & 0xfe) << 11) & (uint64_t{0} - more));
    word0 = (word0 & ~cyc) | (value & cyc);
    size |= (2 + more) & cyc;
    pk.type = static_cast<PacketType>(kSizedType[opc]);
    pk.size = static_cast<uint8_t>(size);
    write_words(pk, word0, word8);
    return tnt >= 2 || !tnt64;
}

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

// Decodes a packet whose kind is already known (begin <= pos < end): its size, or a negative
// pte_* code.
[[gnu::always_inline]] inline int read_packet_kind(Packet& pk, PacketKind kind, const uint8_t* pos,
                                                   const Config& config) noexcept {
    using namespace detail;
    const uint8_t* end = config.end;
    int size;
    switch (kind) {
        case PacketKind::bad:
            return -pte_bad_opc;
        case PacketKind::pad:
            pk.type = PacketType::pad;
            pk.size = 1;
            return 1;
        case PacketKind::tnt_8:
            if (tnt_fill(pk.payload.tnt, pos[0] >> 1) < 0) return -pte_bad_packet;
            pk.type = PacketType::tnt_8;
            pk.size = 1;
            return 1;
        case PacketKind::tip:
        case PacketKind::tip_pge:
        case PacketKind::tip_pgd:
        case PacketKind::fup: {
            uint8_t ipc = pos[0] >> 5;
            int n = kIpSize[ipc];
            if (n < 0) return -pte_bad_packet;
            if (end - (pos + 1) < n) return -pte_eos;
            pk.payload.ip.ipc = ipc;
            pk.payload.ip.ip = n ? read_value(pos + 1, n, end) : 0;
            static constexpr PacketType kTypes[] = {PacketType::tip, PacketType::tip_pge, PacketType::tip_pgd,
                                                    PacketType::fup};
            pk.type = kTypes[static_cast<int>(kind) - static_cast<int>(PacketKind::tip)];
            pk.size = static_cast<uint8_t>(n + 1);
            return n + 1;
        }
        case PacketKind::psb:
            if ((size = need(pos, end, kPsbSize)) < 0) return size;
            for (int i = 2; i < kPsbSize; i += 2)
                if (pos[i] != kOpcExt || pos[i + 1] != kExtPsb) return -pte_bad_packet;
            pk.type = PacketType::psb;
            pk.size = kPsbSize;
            return kPsbSize;
        case PacketKind::psbend:
            pk.type = PacketType::psbend;
            pk.size = 2;
            return 2;
        case PacketKind::ovf:
            pk.type = PacketType::ovf;
            pk.size = 2;
            return 2;
        case PacketKind::stop:
            pk.type = PacketType::stop;
            pk.size = 2;
            return 2;
        case PacketKind::tnt_64:
            if ((size = need(pos, end, 8)) < 0) return size;
            if (tnt_fill(pk.payload.tnt, read_value(pos + 2, 6, end)) < 0) return -pte_bad_packet;
            pk.type = PacketType::tnt_64;
            pk.size = 8;
            return 8;
        case PacketKind::mode: {
            if ((size = need(pos, end, 2)) < 0) return size;
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
            pk.type = PacketType::mode;
            pk.size = 2;
            return 2;
        }
        case PacketKind::pip: {
            if ((size = need(pos, end, 8)) < 0) return size;
            uint64_t payload = read_value(pos + 2, 6, end);
            pk.payload.pip.nr = payload & 1;
            pk.payload.pip.cr3 = (payload >> 1) << 5;
            pk.type = PacketType::pip;
            pk.size = 8;
            return 8;
        }
        case PacketKind::tsc:
            if ((size = need(pos, end, 8)) < 0) return size;
            pk.payload.tsc = read_value(pos + 1, 7, end);
            pk.type = PacketType::tsc;
            pk.size = 8;
            return 8;
        case PacketKind::cbr:
            if ((size = need(pos, end, 4)) < 0) return size;
            pk.payload.cbr = pos[2];
            pk.type = PacketType::cbr;
            pk.size = 4;
            return 4;
        case PacketKind::tma: {
            if ((size = need(pos, end, 7)) < 0) return size;
            auto ctc = static_cast<uint16_t>(pos[2] | (pos[3] << 8));
            auto fc = static_cast<uint16_t>(pos[5] | (pos[6] << 8));
            if (fc & ~0x1ff) return -pte_bad_packet;
            if (pos[4]) return -pte_bad_packet;
            pk.payload.tma.ctc = ctc;
            pk.payload.tma.fc = fc;
            pk.type = PacketType::tma;
            pk.size = 7;
            return 7;
        }
        case PacketKind::mtc:
            if ((size = need(pos, end, 2)) < 0) return size;
            pk.payload.mtc = pos[1];
            pk.type = PacketType::mtc;
            pk.size = 2;
            return 2;
        case PacketKind::cyc: {
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
            pk.type = PacketType::cyc;
            size = static_cast<int>(p - pos);
            pk.size = static_cast<uint8_t>(size);
            return size;
        }
        case PacketKind::vmcs:
            if ((size = need(pos, end, 7)) < 0) return size;
            pk.payload.vmcs_base = read_value(pos + 2, 5, end) << 12;
            pk.type = PacketType::vmcs;
            pk.size = 7;
            return 7;
        case PacketKind::mnt:
            if ((size = need(pos, end, 11)) < 0) return size;
            pk.payload.mnt = read_value(pos + 3, 8, end);
            pk.type = PacketType::mnt;
            pk.size = 11;
            return 11;
        case PacketKind::exstop:
            pk.payload.exstop_ip = (pos[1] & 0x80) ? 1 : 0;
            pk.type = PacketType::exstop;
            pk.size = 2;
            return 2;
        case PacketKind::mwait:
            if ((size = need(pos, end, 10)) < 0) return size;
            pk.payload.mwait.hints = static_cast<uint32_t>(read_value(pos + 2, 4, end));
            pk.payload.mwait.ext = static_cast<uint32_t>(read_value(pos + 6, 4, end));
            pk.type = PacketType::mwait;
            pk.size = 10;
            return 10;
        case PacketKind::pwre: {
            if ((size = need(pos, end, 4)) < 0) return size;
            uint64_t payload = read_value(pos + 2, 2, end);
            pk.payload.pwre.state = static_cast<uint8_t>((payload & 0xf000) >> 12);
            pk.payload.pwre.sub_state = static_cast<uint8_t>((payload & 0xf00) >> 8);
            pk.payload.pwre.hw = (payload & 0x8) ? 1 : 0;
            pk.type = PacketType::pwre;
            pk.size = 4;
            return 4;
        }
        case PacketKind::pwrx: {
            if ((size = need(pos, end, 7)) < 0) return size;
            uint64_t payload = read_value(pos + 2, 5, end);
            PacketPwrx& x = pk.payload.pwrx;
            x.last = static_cast<uint8_t>((payload & 0xf0) >> 4);
            x.deepest = static_cast<uint8_t>(payload & 0xf);
            x.interrupt = (payload & 0x100) ? 1 : 0;
            x.store = (payload & 0x400) ? 1 : 0;
            x.autonomous = (payload & 0x800) ? 1 : 0;
            pk.type = PacketType::pwrx;
            pk.size = 7;
            return 7;
        }
        case PacketKind::ptw: {
            uint8_t opc = pos[1];
            uint8_t plc = (opc >> 5) & 0x3;
            int n = plc == 0 ? 4 : plc == 1 ? 8 : -pte_bad_packet;
            if (n < 0) return n;
            if (end - (pos + 2) < n) return -pte_eos;
            pk.payload.ptw.payload = read_value(pos + 2, n, end);
            pk.payload.ptw.plc = plc;
            pk.payload.ptw.ip = (opc & 0x80) ? 1 : 0;
            pk.type = PacketType::ptw;
            pk.size = static_cast<uint8_t>(n + 2);
            return n + 2;
        }
        case PacketKind::cfe:
            if ((size = need(pos, end, 4)) < 0) return size;
            pk.payload.cfe.type = pos[2] & 0x1f;
            pk.payload.cfe.vector = pos[3];
            pk.payload.cfe.ip = (pos[2] & 0x80) ? 1 : 0;
            pk.type = PacketType::cfe;
            pk.size = 4;
            return 4;
        case PacketKind::evd:
            if ((size = need(pos, end, 11)) < 0) return size;
            pk.payload.evd.type = pos[2] & 0x1f;
            pk.payload.evd.payload = read_value(pos + 3, 8, end);
            pk.type = PacketType::evd;
            pk.size = 11;
            return 11;
        case PacketKind::trig: {
            if ((size = need(pos, end, 3)) < 0) return size;
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
            pk.type = PacketType::trig;
            pk.size = static_cast<uint8_t>(size);
            return size;
        }
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
