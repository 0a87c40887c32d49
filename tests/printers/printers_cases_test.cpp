// Every hand-built record of tests/data/printers/cases.txt, printed by the printer plugins, against
// what libtraceevent 1.7.1 with its own plugins printed for it (expected.txt, made by the oracle in
// oracle/; re-run live when the oracle was built). "D" lines replace the oracle's text where the
// plugin's built-in table is stale and ringscope takes the value from the event's format instead.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include <ringscope/event.hpp>

#include "printers_test_support.hpp"

using namespace printers_test;

namespace {

std::string run_command(const std::string& cmd) {
    std::string all;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return all;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) all.append(buf, n);
    pclose(p);
    return all;
}

struct Results {
    size_t total = 0, same = 0, corrected = 0;
};

Results check_against(const std::vector<std::string>& expected, const std::string& origin) {
    ringscope::format::FormatCatalog cat(8, false);
    TestContext ctx(cat);
    auto cases = load_cases(data_dir() + "/printers/cases.txt", cat, ctx);
    EXPECT_EQ(cases.size(), expected.size()) << origin;
    PrinterSet set;  // one run: the function plugin's indent carries from case to case
    CatalogPrintContext pc(cat);
    Results r;
    for (size_t i = 0; i < cases.size() && i < expected.size(); ++i) {
        const Case& c = cases[i];
        ringscope::Event ev(c.type, &ctx, c.data, c.ts, c.cpu);
        const std::string got = print_event(set, ev, pc, cat);
        const std::string& want = c.corrected ? c.correction : expected[i];
        ++r.total;
        if (c.corrected) {
            ++r.corrected;
            EXPECT_NE(c.correction, expected[i]) << "line " << c.line << ": the correction changes nothing";
        }
        if (got == want) ++r.same;
        EXPECT_EQ(got, want) << origin << ", cases.txt line " << c.line << ": " << c.text;
    }
    return r;
}

}  // namespace

TEST(Printers, MatchCommittedOracleOutput) {
    auto expected = parse_oracle_output(read_file(data_dir() + "/printers/expected.txt"));
    ASSERT_FALSE(expected.empty());
    Results r = check_against(expected, "expected.txt");
    EXPECT_GT(r.total, 60u);
    EXPECT_EQ(r.same, r.total);
    std::printf("printers: %zu/%zu cases identical (%zu with a deliberate correction)\n", r.same, r.total,
                r.corrected);
}

TEST(Printers, MatchLiveLibtraceeventWithPlugins) {
#ifndef RINGSCOPE_PRINTERS_ORACLE
    GTEST_SKIP() << "libtraceevent not installed: the oracle was not built";
#else
    if (!std::filesystem::exists("/usr/lib/x86_64-linux-gnu/traceevent/plugins/plugin_hrtimer.so") &&
        !std::filesystem::exists("/usr/lib/traceevent/plugins/plugin_hrtimer.so"))
        GTEST_SKIP() << "libtraceevent's plugins are not installed";
    const std::string out = run_command(std::string(RINGSCOPE_PRINTERS_ORACLE) + " " + data_dir() +
                                        "/printers/cases.txt " + data_dir() + " 2>/dev/null");
    auto live = parse_oracle_output(out);
    ASSERT_FALSE(live.empty());
    // The committed output is what the live library prints (else expected.txt is stale).
    EXPECT_EQ(live, parse_oracle_output(read_file(data_dir() + "/printers/expected.txt")));
    Results r = check_against(live, "live oracle");
    EXPECT_EQ(r.same, r.total);
#endif
}

// Records cut short anywhere (a corrupt or truncated trace): every printer must stay inside the
// record (the sanitizer build checks) and print the same text each time.
TEST(Printers, TruncatedRecordsStayInBounds) {
    ringscope::format::FormatCatalog cat(8, false);
    TestContext ctx(cat);
    auto cases = load_cases(data_dir() + "/printers/cases.txt", cat, ctx);
    ASSERT_FALSE(cases.empty());
    CatalogPrintContext pc(cat);
    size_t printed = 0;
    for (const Case& c : cases) {
        for (size_t cut = 0; cut < c.data.size(); cut += 3) {
            // A copy of exactly `cut` bytes, so that reading past it is a detectable overflow.
            std::vector<uint8_t> bytes(c.data.begin(), c.data.begin() + static_cast<std::ptrdiff_t>(cut));
            ringscope::Event ev(c.type, &ctx, bytes, c.ts, c.cpu);
            PrinterSet first, second;  // fresh state both times (the function plugin's indent)
            const std::string a = print_event(first, ev, pc, cat);
            const std::string b = print_event(second, ev, pc, cat);
            EXPECT_EQ(a, b) << "cases.txt line " << c.line << " cut at " << cut;
            ++printed;
        }
    }
    EXPECT_GT(printed, 500u);
}
