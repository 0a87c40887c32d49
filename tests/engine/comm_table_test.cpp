// CommTable's look-up table of views: every name found after many additions (the deque grows
// across blocks, the view table reallocates), and a name rewritten by set() (long names that
// reallocate included) is what get() returns.
#include <gtest/gtest.h>

#include <string>

#include "framework/engine/comm_table.hpp"

namespace ringscope::engine {
namespace {

std::string long_name(int pid, char fill) {
    return "task-" + std::to_string(pid) + "-" + std::string(40, fill);
}

TEST(CommTable, ManyNamesLongAndShortStayFound) {
    CommTable t;
    for (int pid = 1; pid <= 5000; ++pid)
        t.add(pid, pid % 3 ? "p" + std::to_string(pid) : long_name(pid, 'a'));
    t.add(2000000, "sparse");  // above the dense table
    for (int pid = 1; pid <= 5000; ++pid)
        ASSERT_EQ(t.get(pid), pid % 3 ? "p" + std::to_string(pid) : long_name(pid, 'a')) << pid;
    EXPECT_EQ(t.get(2000000), "sparse");
    EXPECT_EQ(t.get(0), "<idle>");
    EXPECT_EQ(t.get(5001), "<...>");
    // After the first look-up: new pids are added, known ones keep their name.
    for (int pid = 5001; pid <= 9000; ++pid) t.add(pid, long_name(pid, 'b'));
    t.add(17, "not-this");
    EXPECT_EQ(t.get(17), "p17");
    for (int pid = 1; pid <= 9000; pid += 7) {
        const std::string want = pid > 5000 ? long_name(pid, 'b')
                                 : pid % 3  ? "p" + std::to_string(pid)
                                            : long_name(pid, 'a');
        ASSERT_EQ(t.get(pid), want) << pid;
    }
}

TEST(CommTable, SetRewritesTheNameGetReturns) {
    CommTable t;
    t.add(42, "short");
    t.add(43, long_name(43, 'x'));
    EXPECT_EQ(t.get(42), "short");
    t.set(42, long_name(42, 'y'));  // short -> long: the string reallocates
    EXPECT_EQ(t.get(42), long_name(42, 'y'));
    t.set(43, long_name(43, 'z') + std::string(100, 'z'));  // long -> longer
    EXPECT_EQ(t.get(43), long_name(43, 'z') + std::string(100, 'z'));
    t.set(43, "s");  // and back to a short one
    EXPECT_EQ(t.get(43), "s");
    t.set(44, "fresh");  // set() of an unknown pid adds it
    EXPECT_EQ(t.get(44), "fresh");
    int seen = 0;
    t.for_each([&](int pid, std::string_view comm) {
        ++seen;
        EXPECT_EQ(comm, t.get(pid));
    });
    EXPECT_EQ(seen, 3);
}

}  // namespace
}  // namespace ringscope::engine
