// Integer formatting for the hot output paths: digits written straight into a caller's buffer,
// with the padding printf would add, but without parsing a format string per call. The digits
// are counted first and written in place, two per division, so nothing is copied afterwards.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ringscope::output {

namespace detail {
inline constexpr char kDigitPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";
inline constexpr char kHexLower[] = "0123456789abcdef";
inline constexpr char kHexUpper[] = "0123456789ABCDEF";

// "000102...feff": the two hexadecimal digits of every byte.
struct HexPairs {
    char text[513];
    constexpr explicit HexPairs(const char* digits) : text() {
        for (int i = 0; i < 256; ++i) {
            text[2 * i] = digits[i >> 4];
            text[2 * i + 1] = digits[i & 15];
        }
        text[512] = 0;
    }
};
inline constexpr HexPairs kHexPairsLower(kHexLower);
inline constexpr HexPairs kHexPairsUpper(kHexUpper);

// Writes v's n decimal digits ending at end (v must have exactly n digits, or fewer when the
// caller zero-fills the rest).
inline void put_digits_before(char* end, uint64_t v) noexcept {
    while (v >= 100) {
        end -= 2;
        std::memcpy(end, kDigitPairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) {
        end -= 2;
        std::memcpy(end, kDigitPairs + 2 * v, 2);
    } else {
        *--end = static_cast<char>('0' + v);
    }
}
}  // namespace detail

// Decimal digits of v (1 for 0).
inline size_t count_digits(uint64_t v) noexcept {
    size_t n = 1;
    for (;;) {
        if (v < 10) return n;
        if (v < 100) return n + 1;
        if (v < 1000) return n + 2;
        if (v < 10000) return n + 3;
        v /= 10000;
        n += 4;
    }
}

// Hexadecimal digits of v (1 for 0).
inline size_t count_hex_digits(uint64_t v) noexcept {
    return v ? static_cast<size_t>((67 - __builtin_clzll(v)) / 4) : 1;
}

// Writes the decimal digits of v at p; returns the count (at most 20).
inline size_t write_u64(char* p, uint64_t v) noexcept {
    const size_t n = count_digits(v);
    detail::put_digits_before(p + n, v);
    return n;
}

inline size_t write_i64(char* p, int64_t v) noexcept {
    if (v < 0) {
        *p = '-';
        return 1 + write_u64(p + 1, uint64_t{0} - static_cast<uint64_t>(v));
    }
    return write_u64(p, static_cast<uint64_t>(v));
}

// Writes the hexadecimal digits of v at p (no prefix); returns the count (at most 16). Two
// digits per byte of v.
inline size_t write_hex(char* p, uint64_t v, bool upper = false) noexcept {
    const char* pairs = upper ? detail::kHexPairsUpper.text : detail::kHexPairsLower.text;
    const size_t n = count_hex_digits(v);
    char* end = p + n;
    while (v >= 0x100) {
        end -= 2;
        std::memcpy(end, pairs + 2 * (v & 0xff), 2);
        v >>= 8;
    }
    if (v >= 0x10) {
        end -= 2;
        std::memcpy(end, pairs + 2 * v, 2);
    } else {
        *--end = pairs[2 * v + 1];
    }
    return n;
}

namespace detail {
// The sixteen hexadecimal digits of v, most significant first, stored at p: each nibble spread to
// a byte (SWAR, eight at a time), then '0' or 'a' - 10 added by a mask of the nibbles above 9.
inline uint64_t hex8(uint32_t x, bool upper) noexcept {
    uint64_t s = x;
    s = (s | (s << 16)) & 0x0000ffff0000ffffull;
    s = (s | (s << 8)) & 0x00ff00ff00ff00ffull;
    s = (s | (s << 4)) & 0x0f0f0f0f0f0f0f0full;  // nibble i in byte i, least significant first
    const uint64_t above9 = ((s + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
    s += 0x3030303030303030ull + above9 * (upper ? 'A' - '0' - 10 : 'a' - '0' - 10);
    return std::endian::native == std::endian::little ? __builtin_bswap64(s) : s;
}
inline void hex16_swar(char* p, uint64_t v, bool upper) noexcept {
    const uint64_t hi = hex8(static_cast<uint32_t>(v >> 32), upper);
    const uint64_t lo = hex8(static_cast<uint32_t>(v), upper);
    std::memcpy(p, &hi, 8);
    std::memcpy(p + 8, &lo, 8);
}
#if defined(__SSE2__)
// The same with SSE2: the bytes most significant first, each split into its two nibbles.
inline void hex16_sse2(char* p, uint64_t v, bool upper) noexcept {
    const __m128i bytes = _mm_cvtsi64_si128(static_cast<long long>(__builtin_bswap64(v)));
    const __m128i low4 = _mm_set1_epi8(0x0f);
    const __m128i nibbles =
        _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(bytes, 4), low4), _mm_and_si128(bytes, low4));
    const __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9)),
                                          _mm_set1_epi8(upper ? 'A' - '0' - 10 : 'a' - '0' - 10));
    const __m128i text = _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')), letters);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), text);
}
#endif
}  // namespace detail

// write_hex() without a loop or a table: always stores 16 bytes at p (p needs that much room),
// of which the returned count (at most 16) are the digits.
inline size_t write_hex16(char* p, uint64_t v, bool upper = false) noexcept {
    const size_t n = count_hex_digits(v);
    v <<= 64 - 4 * n;  // the first digit to the top: n is at least 1, so the shift is below 64
#if defined(__SSE2__)
    detail::hex16_sse2(p, v, upper);
#else
    detail::hex16_swar(p, v, upper);
#endif
    return n;
}

// V right-aligned in WIDTH columns, padded with FILL.
inline size_t write_u64_padded(char* p, uint64_t v, size_t width, char fill) noexcept {
    const size_t n = count_digits(v);
    const size_t pad = n < width ? width - n : 0;
    for (size_t i = 0; i < pad; ++i) p[i] = fill;
    detail::put_digits_before(p + pad + n, v);
    return pad + n;
}

// printf("%*llu", width, v): right-aligned, blank-padded.
inline size_t write_u64_right(char* p, uint64_t v, size_t width) noexcept {
    return write_u64_padded(p, v, width, ' ');
}

// printf("%0*llu", width, v): zero-padded.
inline size_t write_u64_zero(char* p, uint64_t v, size_t width) noexcept {
    return write_u64_padded(p, v, width, '0');
}

// printf("%06u", v) for v < 1000000: the microseconds of a time stamp, three digit pairs.
inline void write_6_digits(char* p, uint32_t v) noexcept {
    std::memcpy(p, detail::kDigitPairs + 2 * (v / 10000), 2);
    std::memcpy(p + 2, detail::kDigitPairs + 2 * (v / 100 % 100), 2);
    std::memcpy(p + 4, detail::kDigitPairs + 2 * (v % 100), 2);
}

// printf("%09u", v) for v < 1000000000: the nanoseconds of a time stamp.
inline void write_9_digits(char* p, uint32_t v) noexcept {
    p[0] = static_cast<char>('0' + v / 100000000);
    v %= 100000000;
    std::memcpy(p + 1, detail::kDigitPairs + 2 * (v / 1000000), 2);
    write_6_digits(p + 3, v % 1000000);
}

// printf("%-*d", width, v): left-aligned, blank-padded.
inline size_t write_i64_left(char* p, int64_t v, size_t width) noexcept {
    size_t n = write_i64(p, v);
    for (; n < width; ++n) p[n] = ' ';
    return n;
}

}  // namespace ringscope::output
