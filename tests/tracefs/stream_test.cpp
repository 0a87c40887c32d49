// `ringscope stream`: live events printed as report lines, every marker once and in order, and the
// tracing state restored at the end.
#include <algorithm>
#include <regex>

#include <gtest/gtest.h>

#include "tracefs_test_util.hpp"

using namespace rs_tracefs_test;

namespace {

// The marker lines of stream's output.
std::vector<std::string> marker_lines(const std::string& text) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) nl = text.size();
        std::string l = text.substr(pos, nl - pos);
        pos = nl + 1;
        if (l.find("tracing_mark_write") != std::string::npos) out.push_back(std::move(l));
    }
    return out;
}

}  // namespace

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
    for (const std::string& l : marker_lines(text)) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(l, m, line)) << l;
        ASSERT_EQ(std::stol(m[1]), expect) << l;
        ++expect;
    }
    EXPECT_EQ(expect, kN);
}

// The default line is trace-cmd 3.4's, as report's: the flags column after [CPU]
// (RINGSCOPE_COMPAT=3.4 here, since the test suite sets 3.1); a bad release is a usage error
// before tracing is touched.
TEST(Stream, LinesHaveTheFlagsColumnAs34) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("stream34");
    const std::string inst = unique_name("stream34");
    ASSERT_EQ(sh("RINGSCOPE_COMPAT=3.4 " + std::string(RINGSCOPE_BIN) + " stream -B " + inst +
                 " -b 4096 -e sched:sched_process_exit -- " + MARKER_WRITER_BIN + " " + root + "/instances/" +
                 inst + "/trace_marker 10 > " + dir + "/out.txt 2> " + dir + "/err.txt"),
              0)
        << read_file(dir + "/err.txt");
    EXPECT_FALSE(instance_exists(root, inst));
    const std::string text = read_file(dir + "/out.txt");
    const std::regex line(
        R"(^ *\S.{0,15}-\d+ +\[\d{3}\] [.dDbBnNhHsSzZ0-9]{5} +\d+\.\d{6}: print: {16}tracing_mark_write: n=\d+$)");
    const auto marks = marker_lines(text);
    for (const std::string& l : marks) EXPECT_TRUE(std::regex_match(l, line)) << l;
    EXPECT_EQ(marks.size(), 10u);

    const std::string bad = unique_name("stream34bad");
    EXPECT_EQ(sh("RINGSCOPE_COMPAT=2.0 " + std::string(RINGSCOPE_BIN) + " stream -B " + bad +
                 " -e sched:sched_process_exit -- true > " + dir + "/out2.txt 2> " + dir + "/err2.txt"),
              2);
    EXPECT_NE(read_file(dir + "/err2.txt").find("RINGSCOPE_COMPAT='2.0'"), std::string::npos);
    EXPECT_FALSE(instance_exists(root, bad));
}

// Without a signalfd nothing could stop the loop: one line naming the cause, a non-zero exit, and
// the instance removed (it exited 0, silently, before).
TEST(Stream, SignalfdFailingIsAnError) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("streamsfd");
    const std::string inst = unique_name("streamsfd");
    // The sanitizers' runtime must come first in the library list; the preloaded one is first here.
    const int rc = sh("ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=" +
                      std::string(FAIL_SIGNALFD_LIB) + " " + RINGSCOPE_BIN + " stream -B " + inst +
                      " -e sched:sched_process_exit -- true > " + dir + "/out.txt 2> " + dir + "/err.txt");
    EXPECT_EQ(rc, 1);
    const std::string err = read_file(dir + "/err.txt");
    EXPECT_NE(err.find("signalfd failed: Too many open files"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(instance_exists(root, inst));
}
