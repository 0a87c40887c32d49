// write_hex16 (CompiledPrint's %x, %X and %p) against printf, through both of its bodies (SSE2
// where the build has it, the portable SWAR one everywhere): every digit count, both cases, the
// nibbles around 9/a, and the promise that only the returned count of the 16 stored bytes matter.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "framework/output/number_format.hpp"

namespace {

namespace out = ringscope::output;

std::string printf_hex(uint64_t v, bool upper) {
    char buf[32];
    std::snprintf(buf, sizeof buf, upper ? "%" PRIX64 : "%" PRIx64, v);
    return buf;
}

std::vector<uint64_t> values() {
    std::vector<uint64_t> r = {0,
                               1,
                               9,
                               10,
                               15,
                               16,
                               0x99,
                               0x9a,
                               0xa9,
                               0xff,
                               0x100,
                               0x7ffe9f77df90,
                               0xffffffff,
                               0x100000000,
                               ~uint64_t{0},
                               0x8000000000000000,
                               0x0123456789abcdef};
    for (int bits = 1; bits <= 64; ++bits) {
        const uint64_t top = uint64_t{1} << (bits - 1);
        r.push_back(top);
        r.push_back(top | (top - 1));
    }
    std::mt19937_64 rng(16);
    for (int i = 0; i < 20000; ++i) r.push_back(rng() >> (rng() % 64));
    return r;
}

TEST(HexDigits, WriteHex16IsPrintf) {
    for (const uint64_t v : values())
        for (const bool upper : {false, true}) {
            char buf[16];
            const size_t n = out::write_hex16(buf, v, upper);
            ASSERT_LE(n, 16u);
            ASSERT_EQ(std::string(buf, n), printf_hex(v, upper)) << std::hex << v;
            ASSERT_EQ(n, out::count_hex_digits(v));
        }
}

// The body the build does not take on this machine is checked too: digits moved to the top as
// write_hex16 does, all sixteen stored.
void check_body(void (*body)(char*, uint64_t, bool)) {
    for (const uint64_t v : values())
        for (const bool upper : {false, true}) {
            char buf[16];
            body(buf, v, upper);
            char want[32];
            std::snprintf(want, sizeof want, upper ? "%016" PRIX64 : "%016" PRIx64, v);
            ASSERT_EQ(std::string(buf, 16), want) << std::hex << v;
        }
}

TEST(HexDigits, SwarBody) {
    check_body(out::detail::hex16_swar);
}

#if defined(__SSE2__)
TEST(HexDigits, Sse2Body) {
    check_body(out::detail::hex16_sse2);
}
#endif

}  // namespace
