#include "ipt/psb_search.hpp"

#include <cstdint>
#include <cstring>
#include <initializer_list>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RINGSCOPE_IPT_AVX512 1
#endif

#include "ipt/cpu_features.hpp"
#include "ipt/errors.hpp"
#include "ipt/packet.hpp"

namespace ringscope::ipt {
namespace {

constexpr uint64_t kPatternLoHi = 0x0282028202820282ull;  // bytes 82 02 82 02 ...
constexpr uint64_t kPatternHiLo = 0x8202820282028202ull;  // bytes 02 82 02 82 ...

inline uint64_t load64(const uint8_t* p) noexcept {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline bool is_pattern(uint64_t v) noexcept {
    return v == kPatternLoHi || v == kPatternHiLo;
}

inline const uint8_t* align_up(const uint8_t* p) noexcept {
    auto raw = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<const uint8_t*>((raw + 7) & ~uintptr_t{7});
}

inline const uint8_t* align_down(const uint8_t* p) noexcept {
    return reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{7});
}

// The first aligned word in [pos, end) (pos aligned) that is all pattern; nullptr when none.
const uint8_t* next_pattern_word_portable(const uint8_t* pos, const uint8_t* end) noexcept {
    for (; pos + 8 <= end; pos += 8)
        if (is_pattern(load64(pos))) return pos;
    return nullptr;
}

#if defined(RINGSCOPE_IPT_AVX512)
// Bit i set: the i-th aligned word from at (aligned) is all pattern.
__attribute__((target("avx512f"), always_inline)) inline uint32_t pattern_words(const uint8_t* at) noexcept {
    __m512i v = _mm512_loadu_si512(at);
    return _mm512_cmpeq_epi64_mask(v, _mm512_set1_epi64(static_cast<long long>(kPatternLoHi))) |
           _mm512_cmpeq_epi64_mask(v, _mm512_set1_epi64(static_cast<long long>(kPatternHiLo)));
}

// The search reads at memory speed: lines asked for this far ahead arrive sooner than the
// hardware prefetcher brings them (256 MiB stream: 34 GB/s against 29; 8 KiB ahead did about as
// well, 2 KiB 31). A prefetch past the buffer's end does not fault.
constexpr uintptr_t kPrefetchAhead = 4096;

// Asks for the 256 bytes kPrefetchAhead past pos: one step of the vector searches, ahead.
inline void prefetch_step_ahead(const uint8_t* pos) noexcept {
    // As an integer: the address may lie past the buffer, where a pointer may not point.
    const uintptr_t ahead = reinterpret_cast<uintptr_t>(pos) + kPrefetchAhead;
    for (uintptr_t line = 0; line < 256; line += 64)
        _mm_prefetch(reinterpret_cast<const char*>(ahead + line), _MM_HINT_T0);
}

// AVX-512 compares the aligned words exactly, 32 of them per step: eight lanes of 64 bits per
// register, each against both phases of the pattern.
__attribute__((target("avx512f"))) const uint8_t* next_pattern_word_avx512(const uint8_t* pos,
                                                                           const uint8_t* end) noexcept {
    while (end - pos >= 256) {
        prefetch_step_ahead(pos);
        uint32_t found = pattern_words(pos) | (pattern_words(pos + 64) << 8) |
                         (pattern_words(pos + 128) << 16) | (pattern_words(pos + 192) << 24);
        if (found) return pos + 8 * __builtin_ctz(found);
        pos += 256;
    }
    while (end - pos >= 64) {
        if (uint32_t found = pattern_words(pos)) return pos + 8 * __builtin_ctz(found);
        pos += 64;
    }
    return next_pattern_word_portable(pos, end);
}

// AVX2, for machines without AVX-512: the same exact compare, four words per register, 32 per
// step (64 MiB stream with AVX-512 off: see bench/ipt/README.md).
__attribute__((target("avx2"), always_inline)) inline uint32_t pattern_words_avx2(
    const uint8_t* at) noexcept {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
    const __m256i lohi = _mm256_set1_epi64x(static_cast<long long>(kPatternLoHi));
    const __m256i hilo = _mm256_set1_epi64x(static_cast<long long>(kPatternHiLo));
    const __m256i hit = _mm256_or_si256(_mm256_cmpeq_epi64(v, lohi), _mm256_cmpeq_epi64(v, hilo));
    return static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(hit)));
}

__attribute__((target("avx2"))) const uint8_t* next_pattern_word_avx2(const uint8_t* pos,
                                                                      const uint8_t* end) noexcept {
    while (end - pos >= 256) {
        prefetch_step_ahead(pos);
        uint32_t found = 0;
        for (int i = 0; i < 8; ++i) found |= pattern_words_avx2(pos + 32 * i) << (4 * i);
        if (found) return pos + 8 * __builtin_ctz(found);
        pos += 256;
    }
    while (end - pos >= 32) {
        if (uint32_t found = pattern_words_avx2(pos)) return pos + 8 * __builtin_ctz(found);
        pos += 32;
    }
    return next_pattern_word_portable(pos, end);
}

const bool kHaveAvx2 = cpu_has_avx2();

bool have_avx512() noexcept {
    __builtin_cpu_init();
    return avx512_allowed() && __builtin_cpu_supports("avx512f");
}

const bool kHaveAvx512 = have_avx512();
#endif

#if defined(__SSE2__)
// SSE2 looks at four 16-byte blocks per step for a 32-bit lane whose bytes are all 02 or 82 (one
// AND and one compare: byte & 7f == 02); only then are the eight words checked exactly.
const uint8_t* next_pattern_word_sse2(const uint8_t* pos, const uint8_t* end) noexcept {
    // Reach 16-byte alignment with one scalar word, if needed.
    if ((reinterpret_cast<uintptr_t>(pos) & 15) != 0 && pos + 8 <= end) {
        if (is_pattern(load64(pos))) return pos;
        pos += 8;
    }
    const __m128i low7 = _mm_set1_epi8(0x7f);
    const __m128i ext = _mm_set1_epi8(static_cast<char>(kOpcExt));
    while (end - pos >= 64) {
        __m128i a = _mm_load_si128(reinterpret_cast<const __m128i*>(pos));
        __m128i b = _mm_load_si128(reinterpret_cast<const __m128i*>(pos + 16));
        __m128i c = _mm_load_si128(reinterpret_cast<const __m128i*>(pos + 32));
        __m128i d = _mm_load_si128(reinterpret_cast<const __m128i*>(pos + 48));
        __m128i ma = _mm_cmpeq_epi32(_mm_and_si128(a, low7), ext);
        __m128i mb = _mm_cmpeq_epi32(_mm_and_si128(b, low7), ext);
        __m128i mc = _mm_cmpeq_epi32(_mm_and_si128(c, low7), ext);
        __m128i md = _mm_cmpeq_epi32(_mm_and_si128(d, low7), ext);
        __m128i any = _mm_or_si128(_mm_or_si128(ma, mb), _mm_or_si128(mc, md));
        if (_mm_movemask_epi8(any) != 0) {
            for (int i = 0; i < 64; i += 8)
                if (is_pattern(load64(pos + i))) return pos + i;
        }
        pos += 64;
    }
    return next_pattern_word_portable(pos, end);
}
#endif

using Search = const uint8_t* (*)(const uint8_t*, const uint8_t*) noexcept;

// HOW's search, or nullptr where this build or machine does not run it.
Search search_for(detail::PatternSearch how) noexcept {
    switch (how) {
        case detail::PatternSearch::portable:
            return next_pattern_word_portable;
        case detail::PatternSearch::sse2:
#if defined(__SSE2__)
            return next_pattern_word_sse2;
#else
            return nullptr;
#endif
        case detail::PatternSearch::avx2:
#if defined(RINGSCOPE_IPT_AVX512)
            return kHaveAvx2 ? next_pattern_word_avx2 : nullptr;
#else
            return nullptr;
#endif
        case detail::PatternSearch::avx512:
#if defined(RINGSCOPE_IPT_AVX512)
            return kHaveAvx512 ? next_pattern_word_avx512 : nullptr;
#else
            return nullptr;
#endif
    }
    return nullptr;
}

// The fastest search this machine runs, chosen once.
const Search kFastest = [] {
    for (auto how : {detail::PatternSearch::avx512, detail::PatternSearch::avx2, detail::PatternSearch::sse2})
        if (Search s = search_for(how)) return s;
    return search_for(detail::PatternSearch::portable);
}();

}  // namespace

namespace detail {

bool pattern_search_available(PatternSearch how) noexcept {
    return search_for(how) != nullptr;
}

const uint8_t* next_pattern_word(PatternSearch how, const uint8_t* pos, const uint8_t* end) noexcept {
    Search s = search_for(how);
    return s ? s(pos, end) : nullptr;
}

}  // namespace detail

const uint8_t* find_psb(const uint8_t* pos, const Config& config) noexcept {
    const uint8_t* begin = config.begin;
    const uint8_t* end = config.end;
    if (!pos) return nullptr;
    // Beware: PSB is an extended opcode; the ext opcode of the next packet must not be taken as
    // part of this PSB's pattern.
    if (*pos != kOpcExt) pos++;
    for (; pos + 1 < end; pos += 2)
        if (pos[0] != kOpcExt || pos[1] != kExtPsb) break;
    if (pos - begin < kPsbSize) return nullptr;
    pos -= kPsbSize;
    if (pos[0] != kOpcExt || pos[1] != kExtPsb) return nullptr;
    if (end - pos < kPsbSize) return nullptr;
    for (int i = 2; i < kPsbSize; i += 2)
        if (pos[i] != kOpcExt || pos[i + 1] != kExtPsb) return nullptr;
    return pos;
}

int sync_forward(const uint8_t** sync, const uint8_t* pos, const Config& config, bool skip_before) noexcept {
    const uint8_t* begin = config.begin;
    const uint8_t* end = config.end;
    if (!sync || !pos || pos < begin || end < pos) return -pte_internal;
    const uint8_t* start = pos;
    pos = align_up(pos);
    while (pos < end) {
        const uint8_t* word = kFastest(pos, end);
        if (!word) break;
        pos = word + 8;
        const uint8_t* psb = find_psb(word, config);
        if (!psb) continue;
        if (skip_before && psb < start) continue;
        *sync = psb;
        return 0;
    }
    return -pte_eos;
}

int sync_backward(const uint8_t** sync, const uint8_t* pos, const Config& config) noexcept {
    const uint8_t* begin = config.begin;
    const uint8_t* end = config.end;
    if (!sync || !pos || pos < begin || end < pos) return -pte_internal;
    pos = align_down(pos);
    for (;;) {
        if (pos - begin < 8) return -pte_eos;
        pos -= 8;
        if (!is_pattern(load64(pos))) continue;
        const uint8_t* psb = find_psb(pos, config);
        if (!psb) continue;
        *sync = psb;
        return 0;
    }
}

int psb_before(const uint8_t** sync, const uint8_t* limit, const Config& config, uint64_t* scanned) noexcept {
    const uint8_t* begin = config.begin;
    if (!sync || !limit || limit < begin || config.end < limit) return -pte_internal;
    const uint8_t* pos = align_down(limit);
    uint64_t work = 0;
    int status = -pte_eos;
    while (pos - begin >= 8) {
        pos -= 8;
        work += 8;
        if (!is_pattern(load64(pos))) continue;
        const uint8_t* psb = find_psb(pos, config);
        // find_psb walked to the run's end (less than a PSB when it found none).
        work += psb ? static_cast<uint64_t>(psb + kPsbSize - pos) : uint64_t{kPsbSize};
        if (psb && psb < limit) {
            *sync = psb;
            status = 0;
            break;
        }
        // This run's PSB is not below limit, or the run has none: go on below the run. A word
        // that straddles its start is not all pattern, so resuming at the aligned word below it
        // loses nothing.
        const uint8_t* run = pos;
        while (run - begin >= 1 && (run[-1] == kOpcExt || run[-1] == kExtPsb) && run[-1] != run[0]) --run;
        work += static_cast<uint64_t>(pos - run);
        pos = align_up(run);
    }
    if (scanned) *scanned += work;
    return status;
}

int sync_set(const uint8_t** sync, const uint8_t* pos, const Config& config) noexcept {
    const uint8_t* begin = config.begin;
    const uint8_t* end = config.end;
    if (!sync || !pos) return -pte_internal;
    if (pos < begin || end < pos) return -pte_eos;
    if (end - pos < 2) return -pte_eos;
    if (pos[0] != kOpcExt || pos[1] != kExtPsb) return -pte_nosync;
    if (end - pos < kPsbSize) return -pte_eos;
    for (int i = 2; i < kPsbSize; i += 2)
        if (pos[i] != kOpcExt || pos[i + 1] != kExtPsb) return -pte_bad_packet;
    *sync = pos;
    return 0;
}

}  // namespace ringscope::ipt
