// The duration and indent columns of function_graph lines, at the edges of trace-cmd's rules
// (print_graph_overhead / print_graph_duration in libtracecmd's trace-ftrace.c).
#include <gtest/gtest.h>

#include "fgraph_columns.hpp"

namespace ringscope::function {
namespace {

std::string overhead(uint64_t d) {
    TextBuffer b;
    print_overhead(d, b);
    return std::string(b.view());
}
std::string duration(uint64_t d) {
    TextBuffer b;
    print_duration(d, b);
    return std::string(b.view());
}

TEST(FgraphColumns, MarksStartAboveEachLimit) {
    EXPECT_EQ(overhead(kNoDuration), "  ");
    EXPECT_EQ(overhead(10000), "  ");
    EXPECT_EQ(overhead(10001), "+ ");
    EXPECT_EQ(overhead(100000), "+ ");
    EXPECT_EQ(overhead(100001), "! ");
    EXPECT_EQ(overhead(1000001), "# ");
    EXPECT_EQ(overhead(500000000), "# ");  // the kernel's "@": trace-cmd has none
    EXPECT_EQ(overhead(1000000000), "# ");
    EXPECT_EQ(overhead(1000000001), "$ ");
}

TEST(FgraphColumns, DurationKeepsSevenColumnsOfNumber) {
    EXPECT_EQ(duration(0), "0.000 us   |  ");
    EXPECT_EQ(duration(75516), "75.516 us  |  ");
    EXPECT_EQ(duration(3242027), "3242.027 us |  ");
    EXPECT_EQ(duration(999999999), "999999.999 us |  ");
    EXPECT_EQ(duration(1000000000), "1000000 us |  ");  // 7 digits: no decimals
    EXPECT_EQ(duration(~uint64_t{0}), "18446744073709551 us |  ");
}

TEST(FgraphColumns, IndentIsTwoBlanksALevelAsAnInt) {
    TextBuffer b;
    print_indent(3, b);
    EXPECT_EQ(b.view(), "      ");
    b.clear();
    print_indent(0xffffffff, b);  // -1 read as unsigned: (int)(depth * 2) < 0
    EXPECT_EQ(b.view(), "");
    b.clear();
    print_indent(0x3fffffff, b);  // 2^31 - 2 blanks in trace-cmd: capped
    EXPECT_EQ(b.size(), static_cast<size_t>(kMaxIndent));
}

}  // namespace
}  // namespace ringscope::function
