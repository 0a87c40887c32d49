// ReportLineWriter and the number formatting against printf, on values chosen to hit every padding rule.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "framework/output/number_format.hpp"
#include "framework/output/report_line_writer.hpp"

namespace ringscope::output {
namespace {

std::string printf_str(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string printf_str(const char* fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return std::string(buf, static_cast<size_t>(n));
}

TEST(NumberFormat, MatchesPrintf) {
    const uint64_t values[] = {
        0, 1, 9, 10, 99, 100, 12345, 99999, 100000, 4294967295ull, 18446744073709551615ull};
    char buf[64];
    for (uint64_t v : values) {
        EXPECT_EQ(std::string(buf, write_u64(buf, v)), printf_str("%" PRIu64, v));
        EXPECT_EQ(std::string(buf, write_u64_right(buf, v, 5)), printf_str("%5" PRIu64, v));
        EXPECT_EQ(std::string(buf, write_u64_zero(buf, v, 6)), printf_str("%06" PRIu64, v));
        EXPECT_EQ(std::string(buf, write_u64_right(buf, v, 12)), printf_str("%12" PRIu64, v));
    }
    const int64_t signed_values[] = {0, -1, 5, -12345, 123456, INT64_MIN, INT64_MAX};
    for (int64_t v : signed_values) {
        EXPECT_EQ(std::string(buf, write_i64(buf, v)), printf_str("%" PRId64, v));
        EXPECT_EQ(std::string(buf, write_i64_left(buf, v, 5)), printf_str("%-5" PRId64, v));
    }
}

TEST(ReportTime, UsecsRoundNsecsDoNotRawIsTwelveColumns) {
    TextBuffer t;
    ReportLineWriter::append_time(t, 440458073989ull, false, {true, true});
    EXPECT_EQ(t.view(), "  440.458074");
    t.clear();
    ReportLineWriter::append_time(t, 440458073499ull, false, {true, true});
    EXPECT_EQ(t.view(), "  440.458073");
    t.clear();
    ReportLineWriter::append_time(t, 999999500ull, false, {true, true});  // rounds into the next second
    EXPECT_EQ(t.view(), "    1.000000");
    t.clear();
    ReportLineWriter::append_time(t, 0, false, {true, true});  // --align-ts: the first event
    EXPECT_EQ(t.view(), "    0.000000");
    t.clear();
    ReportLineWriter::append_time(t, 440458073989ull, true, {true, true});
    EXPECT_EQ(t.view(), "  440.458073989");
    t.clear();
    ReportLineWriter::append_time(t, 440458073989ull, false, {false, true});
    EXPECT_EQ(t.view(), "440458073989");
    t.clear();
    ReportLineWriter::append_time(t, 123456789012345678ull, false, {true, true});
    EXPECT_EQ(t.view(), "123456789.012346");
}

}  // namespace
}  // namespace ringscope::output
