// Integer formatting for the hot output paths: digits written straight into a caller's buffer,
// with the padding printf would add, but without parsing a format string per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ringscope::output {

namespace detail {
inline constexpr char kDigitPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";
}

// Writes the decimal digits of v at p; returns the count (at most 20). Two digits per division.
inline size_t write_u64(char* p, uint64_t v) noexcept {
    char tmp[20];
    char* end = tmp + sizeof tmp;
    char* q = end;
    while (v >= 100) {
        const auto r = static_cast<unsigned>(v % 100);
        v /= 100;
        q -= 2;
        std::memcpy(q, detail::kDigitPairs + 2 * r, 2);
    }
    if (v >= 10) {
        q -= 2;
        std::memcpy(q, detail::kDigitPairs + 2 * v, 2);
    } else {
        *--q = static_cast<char>('0' + v);
    }
    const size_t n = static_cast<size_t>(end - q);
    std::memcpy(p, q, n);
    return n;
}

inline size_t write_i64(char* p, int64_t v) noexcept {
    if (v < 0) {
        *p = '-';
        return 1 + write_u64(p + 1, uint64_t{0} - static_cast<uint64_t>(v));
    }
    return write_u64(p, static_cast<uint64_t>(v));
}

// printf("%*llu", width, v): right-aligned, blank-padded.
inline size_t write_u64_right(char* p, uint64_t v, size_t width) noexcept {
    char tmp[20];
    size_t n = write_u64(tmp, v);
    size_t pad = n < width ? width - n : 0;
    std::memset(p, ' ', pad);
    std::memcpy(p + pad, tmp, n);
    return pad + n;
}

// printf("%0*llu", width, v): zero-padded.
inline size_t write_u64_zero(char* p, uint64_t v, size_t width) noexcept {
    char tmp[20];
    size_t n = write_u64(tmp, v);
    size_t pad = n < width ? width - n : 0;
    std::memset(p, '0', pad);
    std::memcpy(p + pad, tmp, n);
    return pad + n;
}

// printf("%-*d", width, v): left-aligned, blank-padded.
inline size_t write_i64_left(char* p, int64_t v, size_t width) noexcept {
    size_t n = write_i64(p, v);
    if (n < width) {
        std::memset(p + n, ' ', width - n);
        n = width;
    }
    return n;
}

}  // namespace ringscope::output
