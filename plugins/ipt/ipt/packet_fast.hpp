// The packet reader's fast paths: the packets that dominate real traces decoded from a table,
// without a branch on their kind (read_fast), the sizes of sixteen of them at once (fast_sizes),
// and read_sized for the packets block_starts found. The general decode is packet_reader.hpp's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ipt/packet.hpp"
#include "ipt/packet_reader.hpp"

namespace ringscope::ipt {
namespace detail {

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

}  // namespace ringscope::ipt
