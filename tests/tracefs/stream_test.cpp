// `ringscope stream`: live events printed as report lines, every marker once and in order, and the
// tracing state restored at the end.
#include <regex>

#include <gtest/gtest.h>

#include "tracefs_test_util.hpp"

using namespace rs_tracefs_test;

TEST(Stream, PrintsMarkersLiveAsReportLines) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("stream");
    const std::string inst = unique_name("stream");
    constexpr int kN = 20000;
    ASSERT_EQ(
        sh(std::string(RINGSCOPE_BIN) + " stream -B " + inst + " -b 4096 -e sched:sched_process_exit -- " +
           MARKER_WRITER_BIN + " " + root + "/instances/" + inst + "/trace_marker " + std::to_string(kN) +
           " > " + dir + "/out.txt 2> " + dir + "/err.txt"),
        0)
        << read_file(dir + "/err.txt");
    EXPECT_FALSE(instance_exists(root, inst));
    const std::string text = read_file(dir + "/out.txt");
    // trace-cmd report's layout: comm right-aligned in 16, -pid left in 5, [CPU], time, name padded.
    const std::regex line(
        R"(^ *\S.{0,15}-\d+ +\[\d{3}\] +\d+\.\d{6}: print: {16}tracing_mark_write: n=(\d+)$)");
    long expect = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) nl = text.size();
        const std::string l = text.substr(pos, nl - pos);
        pos = nl + 1;
        if (l.find("tracing_mark_write") == std::string::npos) continue;
        std::smatch m;
        ASSERT_TRUE(std::regex_match(l, m, line)) << l;
        ASSERT_EQ(std::stol(m[1]), expect) << l;
        ++expect;
    }
    EXPECT_EQ(expect, kN);
}
