#include "ipt/block_starts.hpp"

#include <array>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RINGSCOPE_IPT_VBMI 1
#endif

#include "ipt/cpu_features.hpp"
#include "ipt/packet.hpp"
#include "ipt/packet_reader.hpp"

namespace ringscope::ipt::detail {
namespace {

constexpr int kSize = BlockStarts::kSize;
constexpr uint8_t kExtTnt64 = 0xa3;
constexpr uint8_t kTnt64Size = 8;
constexpr uint8_t kCycExt = 0x07;  // a CYC opcode with its extension bit (opcode & 7)

#if defined(RINGSCOPE_IPT_VBMI)

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
#if defined(RINGSCOPE_IPT_VBMI)
    if (kHaveVbmi) return starts_vbmi(out, p, long_cyc);
#endif
    block_starts_walk(out, p, long_cyc);
}

bool block_starts_vectorized() noexcept {
#if defined(RINGSCOPE_IPT_VBMI)
    return kHaveVbmi;
#else
    return false;
#endif
}

}  // namespace ringscope::ipt::detail
