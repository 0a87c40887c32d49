#include "ipt/block_starts.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RINGSCOPE_IPT_X86 1
#endif

#include "ipt/cpu_features.hpp"
#include "ipt/packet.hpp"
#include "ipt/packet_fast.hpp"
#include "ipt/packet_reader.hpp"

namespace ringscope::ipt::detail {
namespace {

constexpr int kSize = BlockStarts::kSize;
constexpr uint8_t kExtTnt64 = 0xa3;
constexpr uint8_t kTnt64Size = 8;
constexpr uint8_t kCycExt = 0x07;  // a CYC opcode with its extension bit (opcode & 7)

#if defined(RINGSCOPE_IPT_X86)

constexpr uint8_t kOpcMtc = 0x59;

constexpr std::array<uint8_t, 256> make_sizes() {
    std::array<uint8_t, 256> t{};
    for (size_t i = 0; i < t.size(); ++i) t[i] = kFast[i].size;
    return t;
}
alignas(64) constexpr std::array<uint8_t, 256> kSizes = make_sizes();

// Lanes whose index has bit k set: the walk's lane n applies 2^k steps when bit k of n is set.
constexpr std::array<uint64_t, 6> kLaneBit{0xaaaaaaaaaaaaaaaaull, 0xccccccccccccccccull,
                                           0xf0f0f0f0f0f0f0f0ull, 0xff00ff00ff00ff00ull,
                                           0xffff0000ffff0000ull, 0xffffffff00000000ull};

// One step of the walk: the lanes given advance by the current jump, which then doubles.
__attribute__((target("avx512f,avx512bw,avx512vbmi"), always_inline)) inline void double_walk(
    __m512i& walk, __m512i& jump, uint64_t lanes, const __m512i& past) noexcept {
    walk = _mm512_mask_mov_epi8(walk, lanes, _mm512_permutex2var_epi8(jump, walk, past));
    jump = _mm512_permutex2var_epi8(jump, jump, past);
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void starts_vbmi(BlockStarts& out, const uint8_t* p,
                                                                        bool long_cyc) noexcept {
    const __m512i bytes = _mm512_loadu_si512(p);
    const __m512i after = _mm512_loadu_si512(p + 1);
    // Each byte's size as an opcode: two 128-entry lookups, picked by the byte's top bit.
    const auto* table = kSizes.data();
    __m512i low = _mm512_permutex2var_epi8(_mm512_load_si512(table), bytes, _mm512_load_si512(table + 64));
    __m512i high =
        _mm512_permutex2var_epi8(_mm512_load_si512(table + 128), bytes, _mm512_load_si512(table + 192));
    __m512i size = _mm512_mask_blend_epi8(_mm512_movepi8_mask(bytes), low, high);
    __mmask64 tnt64 = _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8(static_cast<char>(kOpcExt))) &
                      _mm512_cmpeq_epi8_mask(after, _mm512_set1_epi8(static_cast<char>(kExtTnt64)));
    size = _mm512_mask_mov_epi8(size, tnt64, _mm512_set1_epi8(static_cast<char>(kTnt64Size)));
    if (long_cyc) {
        // A CYC of 2 bytes (the second's continuation bit clear) or 3.
        const __m512i one = _mm512_set1_epi8(1), ext = _mm512_set1_epi8(kCycExt);
        __mmask64 cyc = _mm512_cmpeq_epi8_mask(_mm512_and_si512(bytes, ext), ext);
        __mmask64 more1 = _mm512_test_epi8_mask(after, one);
        __mmask64 more2 = _mm512_test_epi8_mask(_mm512_loadu_si512(p + 2), one);
        size = _mm512_mask_mov_epi8(size, cyc & ~more1, _mm512_set1_epi8(2));
        size = _mm512_mask_mov_epi8(size, cyc & more1 & ~more2, _mm512_set1_epi8(3));
    }

    // jump[i]: where the packet after the one at i starts. Offsets past the block and packets
    // with no size are fixed points (an index of kSize or more reads the second table, which
    // gives it back), so that jumping further stays where the fast packets end.
    const __m512i iota =
        _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43,
                        42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22,
                        21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i past = _mm512_add_epi8(iota, _mm512_set1_epi8(static_cast<char>(kSize)));
    __m512i jump = _mm512_add_epi8(iota, size);
    // walk[n]: the offset of the n-th packet, from jumps of 1, 2, 4, ... 32 packets; the jumps
    // are doubled once more, to 64: from 0, that is where the walk ends.
    __m512i walk = _mm512_setzero_si512();
#pragma GCC unroll 6
    for (uint64_t lanes : kLaneBit) double_walk(walk, jump, lanes, past);
    _mm512_store_si512(out.at, walk);
    // The walk's packets are those before its end (a packet with no size, or past the block).
    out.next = _mm512_cvtsi512_si32(jump) & 0xff;
    __m512i end = _mm512_permutex2var_epi8(jump, _mm512_setzero_si512(), past);  // lane 0 everywhere
    out.count = __builtin_popcountll(_mm512_cmplt_epu8_mask(walk, end));
}

bool have_vbmi() noexcept {
    __builtin_cpu_init();
    return avx512_allowed() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vbmi");
}

const bool kHaveVbmi = have_vbmi();
const bool kHaveAvx2 = cpu_has_avx2();

// kBitIndex[m]: the set bits of m, lowest first; turns a set of packet starts into at[].
constexpr std::array<std::array<uint8_t, 8>, 256> make_bit_index() {
    std::array<std::array<uint8_t, 8>, 256> t{};
    for (size_t m = 0; m < t.size(); ++m) {
        size_t n = 0;
        for (uint8_t bit = 0; bit < 8; ++bit)
            if ((m >> bit) & 1) t[m][n++] = bit;
    }
    return t;
}
constexpr std::array<std::array<uint8_t, 8>, 256> kBitIndex = make_bit_index();

// kFast[].size of 32 opcodes, and TNT-64's 8 for 02 a3, from two nibble lookups: the low nibble
// gives 1 (PAD, TNT-8, one-byte CYC), 0, or 0x80 for an IP packet, whose size then comes from the
// high nibble (the IP compression); the extended opcode and MTC (59) are set apart. Fewer steps
// than the compares of fast_sizes.
__attribute__((target("avx2"), always_inline)) inline __m256i fast_sizes_avx2(__m256i bytes,
                                                                              __m256i after) noexcept {
    const __m256i by_low = _mm256_setr_epi8(1, -128, 1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 1, -128, 1, 0, 1, -128, 1,
                                            1, 1, 0, 1, 0, 1, 0, 1, 1, 1, -128, 1, 0);
    const __m256i ip_size = _mm256_setr_epi8(1, 1, 3, 3, 5, 5, 7, 7, 7, 7, 0, 0, 9, 9, 0, 0, 1, 1, 3, 3, 5, 5,
                                             7, 7, 7, 7, 0, 0, 9, 9, 0, 0);
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    __m256i low = _mm256_shuffle_epi8(by_low, _mm256_and_si256(bytes, nibble));
    __m256i high = _mm256_shuffle_epi8(ip_size, _mm256_and_si256(_mm256_srli_epi16(bytes, 4), nibble));
    __m256i size = _mm256_blendv_epi8(low, high, low);
    size = _mm256_or_si256(
        size, _mm256_and_si256(_mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(kOpcMtc)), _mm256_set1_epi8(2)));
    __m256i tnt64 = _mm256_and_si256(_mm256_cmpeq_epi8(after, _mm256_set1_epi8(static_cast<char>(kExtTnt64))),
                                     _mm256_set1_epi8(kTnt64Size));
    return _mm256_blendv_epi8(size, tnt64, _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(kOpcExt)));
}

// AVX2 has no byte permute across 16-byte lanes, so the doubling runs inside each lane: jump[i]
// is 0x70 | the next packet's offset in the lane (pshufb reads its low nibble), or past the lane
// 0x80 | the offset in the following lane (pshufb reads 0 there, and max keeps it): both are
// 0x70 + i + size. reach[i] (two bytes: offsets 0-7, 8-15) holds the offsets met from i in the
// lane. Four doublings cover a lane; the four lanes are then joined by a scalar step each, where
// the packet leaving a lane gives the next lane's entry. A packet with no size is a fixed point,
// in its own reach: the join drops it.
__attribute__((target("avx2"))) void starts_avx2(BlockStarts& out, const uint8_t* p, bool long_cyc) noexcept {
    const __m256i iota = _mm256_setr_epi8(0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
                                          0x7b, 0x7c, 0x7d, 0x7e, 0x7f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75,
                                          0x76, 0x77, 0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f);
    const __m256i bit_lo = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8,
                                            16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i bit_hi = _mm256_permute4x64_epi64(bit_lo, 0xb1);  // the lanes' halves swapped
    const __m256i one = _mm256_set1_epi8(1);
    alignas(32) uint8_t exit[kSize], reach_lo[kSize], reach_hi[kSize];
#pragma GCC unroll 2
    for (int half = 0; half < kSize; half += 32) {
        const uint8_t* q = p + half;
        const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
        const __m256i after = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 1));
        __m256i size = fast_sizes_avx2(bytes, after);
        if (long_cyc) {
            // A CYC of 2 bytes (the second's continuation bit clear) or 3, by the continuation bits
            // of the two bytes after the opcode; with both set it has no fast size.
            const __m256i by_more = _mm256_setr_epi8(2, 3, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 2,
                                                     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
            const __m256i ext = _mm256_set1_epi8(kCycExt);
            __m256i third = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 2));
            __m256i more =
                _mm256_or_si256(_mm256_and_si256(after, one),
                                _mm256_and_si256(_mm256_add_epi8(third, third), _mm256_set1_epi8(2)));
            __m256i cyc = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, ext), ext);
            size = _mm256_blendv_epi8(size, _mm256_shuffle_epi8(by_more, more), cyc);
        }
        __m256i jump = _mm256_add_epi8(iota, size);
        __m256i lo = bit_lo, hi = bit_hi;
#pragma GCC unroll 4
        for (int step = 0; step < 4; ++step) {
            lo = _mm256_or_si256(lo, _mm256_shuffle_epi8(lo, jump));
            hi = _mm256_or_si256(hi, _mm256_shuffle_epi8(hi, jump));
            jump = _mm256_max_epu8(jump, _mm256_shuffle_epi8(jump, jump));
        }
        _mm256_store_si256(reinterpret_cast<__m256i*>(exit + half), jump);
        _mm256_store_si256(reinterpret_cast<__m256i*>(reach_lo + half), lo);
        _mm256_store_si256(reinterpret_cast<__m256i*>(reach_hi + half), hi);
    }
    uint64_t starts = 0;
    int next = 0;
    int entry = 0;
#pragma GCC unroll 4
    for (int lane = 0; lane < kSize; lane += 16) {
        int i = lane + entry;
        starts |= static_cast<uint64_t>(reach_lo[i] | reach_hi[i] << 8) << lane;
        int to = exit[i];
        if (to < 0x80) {  // a packet with no fast size: the walk ends there
            next = lane + (to & 0x0f);
            starts &= ~(uint64_t{1} << next);
            break;
        }
        entry = to & 0x7f;
        next = lane + 16 + entry;
    }
    // The offsets of the set bits, eight bits at a time, straight into at[]: at most 8j packets
    // precede bit 8j, so each group's 8 bytes end inside it.
    int n = 0;
#pragma GCC unroll 8
    for (int byte = 0; byte < 8; ++byte) {
        auto bits = static_cast<unsigned>(starts >> (8 * byte)) & 0xff;
        uint64_t group;
        std::memcpy(&group, kBitIndex[bits].data(), 8);
        group += 0x0101010101010101ull * static_cast<uint64_t>(8 * byte);
        std::memcpy(out.at + n, &group, 8);
        n += __builtin_popcount(bits);
    }
    out.count = n;
    out.next = next;
}

#endif

}  // namespace

void block_starts_walk(BlockStarts& out, const uint8_t* p, bool long_cyc) noexcept {
    alignas(16) uint8_t sizes[kSize];
    fast_sizes(sizes, p, kSize);
    int n = 0;
    int at = 0;
    while (at < kSize) {
        int size = sizes[at];
        if (!size && p[at] == kOpcExt && p[at + 1] == kExtTnt64) size = kTnt64Size;
        if (!size && long_cyc && (p[at] & kCycExt) == kCycExt && !(p[at + 1] & 1 && p[at + 2] & 1))
            size = 2 + (p[at + 1] & 1);
        if (!size) break;
        out.at[n++] = static_cast<uint8_t>(at);
        at += size;
    }
    out.count = n;
    out.next = at;
}

void block_starts(BlockStarts& out, const uint8_t* p, bool long_cyc) noexcept {
#if defined(RINGSCOPE_IPT_X86)
    if (kHaveVbmi) return starts_vbmi(out, p, long_cyc);
    if (kHaveAvx2) return starts_avx2(out, p, long_cyc);
#endif
    block_starts_walk(out, p, long_cyc);
}

void block_starts_avx2(BlockStarts& out, const uint8_t* p, bool long_cyc) noexcept {
#if defined(RINGSCOPE_IPT_X86)
    starts_avx2(out, p, long_cyc);
#else
    block_starts_walk(out, p, long_cyc);
#endif
}

bool block_starts_avx2_available() noexcept {
#if defined(RINGSCOPE_IPT_X86)
    return kHaveAvx2;
#else
    return false;
#endif
}

bool block_starts_vectorized() noexcept {
#if defined(RINGSCOPE_IPT_X86)
    return kHaveVbmi;
#else
    return false;
#endif
}

}  // namespace ringscope::ipt::detail
