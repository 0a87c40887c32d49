// TextBuffer's raw-write helpers give what snprintf gives, and begin_write/end_write keep exactly
// the text written after what the buffer held.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <ringscope/text_buffer.hpp>

namespace ringscope {
namespace {

const std::vector<int64_t>& samples() {
    static const std::vector<int64_t> v = [] {
        std::vector<int64_t> s = {0,
                                  1,
                                  -1,
                                  9,
                                  10,
                                  -10,
                                  99,
                                  100,
                                  -100,
                                  999,
                                  1000,
                                  12345,
                                  -12345,
                                  4294967295LL,
                                  std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min()};
        for (int64_t p = 1; p < std::numeric_limits<int64_t>::max() / 10; p *= 10) {
            s.push_back(p - 1);
            s.push_back(p);
            s.push_back(-p);
        }
        return s;
    }();
    return v;
}

std::string written(int64_t v, unsigned width) {
    TextBuffer b;
    b.append("x");
    char* p = b.begin_write(TextBuffer::kMaxIntChars + width);
    b.end_write(TextBuffer::put_int_width(p, v, width));
    return b.str();
}

TEST(SdkTextBuffer, PutIntMatchesSnprintf) {
    char want[64];
    for (int64_t v : samples()) {
        char got[TextBuffer::kMaxIntChars];
        std::snprintf(want, sizeof want, "%" PRId64, v);
        EXPECT_EQ(std::string(got, TextBuffer::put_int(got, v)), want);
        const auto u = static_cast<uint64_t>(v);
        std::snprintf(want, sizeof want, "%" PRIu64, u);
        EXPECT_EQ(std::string(got, TextBuffer::put_uint(got, u)), want);
    }
}

TEST(SdkTextBuffer, PutIntWidthMatchesZeroPaddedSnprintf) {
    char want[64];
    for (int64_t v : samples())
        for (unsigned width : {0u, 1u, 2u, 3u, 5u, 20u, 24u}) {
            std::snprintf(want, sizeof want, "x%0*" PRId64, static_cast<int>(width), v);
            EXPECT_EQ(written(v, width), want) << v << " width " << width;
        }
}

TEST(SdkTextBuffer, BeginEndWriteKeepWhatWasWritten) {
    TextBuffer b;
    b.append("comm");
    char* p = b.begin_write(64);
    p = TextBuffer::put(p, '-');
    p = TextBuffer::put_int(p, 1234);
    p = TextBuffer::put(p, " [");
    p = TextBuffer::put_int_width(p, 7, 3);
    p = TextBuffer::put(p, std::string_view("] name: "));
    b.end_write(p);
    EXPECT_EQ(b.view(), "comm-1234 [007] name: ");
    b.push_back('!');
    EXPECT_EQ(b.view(), "comm-1234 [007] name: !");

    // Nothing written: the text is as before; a long write grows the buffer.
    b.end_write(b.begin_write(16));
    EXPECT_EQ(b.view(), "comm-1234 [007] name: !");
    const std::string big(5000, 'z');
    b.clear();
    b.end_write(TextBuffer::put(b.begin_write(big.size()), big));
    EXPECT_EQ(b.view(), big);
}

}  // namespace
}  // namespace ringscope
