// report --profile's stack trees (plugins/sched/profile_stacks.cpp) on chains built here, so the
// tree is checked without the shared traces (TraceCmd31LiveProfile checks it against trace-cmd):
// merged prefixes, single-child runs, the share of the time, the order, the "|" columns.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "framework/symbols/resolver_registry.hpp"
#include "plugins/sched/profile_stacks.hpp"

namespace ringscope::sched {
namespace {

class StackContext final : public TraceContext {
  public:
    std::string_view comm(int) const override { return "<...>"; }
    void register_comm(int, std::string_view) override {}
    const EventType* type_by_id(uint32_t) const override { return nullptr; }
    const EventType* find_type(std::string_view, std::string_view) const override { return nullptr; }
    const ResolverService& resolvers() const override { return resolvers_; }
    std::string_view source_name() const override { return "test"; }
    int cpu_count() const override { return 1; }
    int long_size() const override { return 8; }
    bool big_endian() const override { return false; }

  private:
    symbols::ResolverRegistry resolvers_;
};

std::vector<uint8_t> chain(std::vector<uint64_t> callers) {
    std::vector<uint8_t> bytes(callers.size() * 8);
    std::memcpy(bytes.data(), callers.data(), bytes.size());
    return bytes;
}

TEST(ProfileStacks, TreeAsTraceCmdPrintsIt) {
    StackSet set;
    const auto a = chain({0x1000, 0x2000, 0x3000}), b = chain({0x1000, 0x2000, 0x4000});
    const auto c = chain({0x5000, ~uint64_t{0}, 0x6000});  // all ones ends the chain
    set.add(a, 10, 1000000000);
    set.add(a, 30, 2000000000);
    set.add(b, 60, 3000000000);
    set.add(c, 0, 4000000000);
    StackContext ctx;
    TextBuffer out;
    set.print(ctx, out);
    EXPECT_EQ(out.view(),
              "          | \n"
              "          + 0x1000\n"
              "          |   100% (3) time:100 max:60(ts:3.000000) min:10(ts:1.000000) avg:33\n"
              "          |    0x2000\n"
              "          |     | \n"
              "          |     + 0x4000\n"
              "          |     |   60% (1) time:60 max:60(ts:3.000000) min:60(ts:3.000000) avg:60\n"
              "          |     | \n"
              "          |     + 0x3000\n"
              "          |         40% (2) time:40 max:30(ts:2.000000) min:10(ts:1.000000) avg:20\n"
              "          |       \n"
              "          | \n"
              "          | \n"
              "          + 0x5000\n"
              "              0% (1)\n"
              "            \n"
              "      \n");
}

TEST(ProfileStacks, CountsGiveTheShareWithoutTimes) {
    StackSet set, other;
    set.add(chain({0x1000}), 0, 1);
    other.add(chain({0x1000}), 0, 2);
    other.add(chain({0x2000}), 0, 3);
    set.merge(other);  // --by-comm
    StackContext ctx;
    TextBuffer out;
    set.print(ctx, out);
    EXPECT_NE(out.view().find("+ 0x1000\n          |   67% (2)\n"), std::string_view::npos) << out.view();
    EXPECT_NE(out.view().find("+ 0x2000\n              33% (1)\n"), std::string_view::npos) << out.view();
}

}  // namespace
}  // namespace ringscope::sched
