// function_graph as trace-cmd prints it: `ringscope report` on the traces of tests/data/fgraph
// (written by make_fgraph_traces from real kernels' formats) against trace-cmd 3.1.6's committed
// output, byte for byte, with -j 1 and -j 2 (cases.tsv; RINGSCOPE_COMPAT=3.1), and against what
// trace-cmd 3.3/3.4 print (cases-3.4.tsv; see the README there); the real i386 trace of
// ../shared against trace-cmd 3.1.6 run live and trace-cmd 3.4's stored output.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "manifest.hpp"
#include "process.hpp"
#include "text_compare.hpp"

namespace ringscope::conformance {
namespace {

namespace fs = std::filesystem;

const std::string kData = RINGSCOPE_TEST_DATA_DIR;
const std::string kRingscope = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
const std::string kExternal = std::string(RINGSCOPE_SHARED_DIR) + "/conformance/external-traces";
const std::string kOutputs34 = std::string(RINGSCOPE_SHARED_DIR) + "/conformance/trace-cmd-3.4/outputs";
constexpr int kTimeout = 120;

// RINGSCOPE_COMPAT for the runs that follow (the function plugin reads it per run).
void compat(const char* release) {
    setenv("RINGSCOPE_COMPAT", release, 1);
}

RunResult report(std::vector<std::string> args, const std::string& cwd) {
    args.insert(args.begin(), "report");
    return run_program(kRingscope, args, cwd, kTimeout);
}

std::string show(const std::vector<std::string>& args) {
    std::string s = "ringscope report";
    for (const auto& a : args) s += " " + a;
    return s;
}

void expect_same(const std::string& want, const RunResult& r, const std::string& what) {
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_FALSE(r.timed_out) << what;
    const Comparison c = compare_text(want, r.out);
    EXPECT_TRUE(c.identical) << what << "\n" << c.report << (r.err.empty() ? "" : "stderr:\n" + r.err);
}

const std::vector<Case>& cases(const char* manifest) {
    static std::map<std::string, std::vector<Case>> loaded;
    auto it = loaded.find(manifest);
    if (it == loaded.end())
        it = loaded.emplace(manifest, load_cases(kData + "/fgraph/" + manifest, false, "")).first;
    return it->second;
}

std::string param_name(const testing::TestParamInfo<Case>& info) {
    return test_name(info.param.name);
}

// trace-cmd 3.4 prints the flags column (`report --compat 3.4` adds it, not this plugin): the
// comparison drops it from 3.4's lines, the rest is byte for byte.
std::string without_flags_column(const std::string& text) {
    std::string out;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size() - 1;
        std::string line = text.substr(pos, end + 1 - pos);
        // "... [000] d.h..    38.926579: ..." -> "... [000]    38.926579: ..."
        const size_t cpu = line.find("] ");
        if (cpu != std::string::npos && line.size() > cpu + 8 && line[cpu + 7] == ' ') line.erase(cpu + 1, 6);
        out += line;
        pos = end + 1;
    }
    return out;
}

// Each case with -j 1 and -j 2: the lines a plugin prints (and the records it takes out of the
// merge) go through the merging thread in both.
void run_case(const Case& c, const char* release) {
    ASSERT_TRUE(c.error.empty()) << c.error;
    ASSERT_EQ(access(kRingscope.c_str(), X_OK), 0) << kRingscope << " is not built";
    std::string want, error;
    ASSERT_TRUE(read_expected(kData + "/" + c.expected, want, error)) << error;
    compat(release);
    for (const char* jobs : {"1", "2"}) {
        std::vector<std::string> args = {"-j", jobs};
        args.insert(args.end(), c.args.begin(), c.args.end());
        RunResult r = report(args, kData);
        // The 3.4 expectations hold the plugin's lines without the flags column (compat_test checks
        // the column against trace-cmd 3.4's own output).
        if (std::string_view(release) == "3.4") r.out = without_flags_column(r.out);
        expect_same(
            want, r,
            "case " + c.name + " (RINGSCOPE_COMPAT=" + release + "): cd " + kData + " && " + show(args));
        EXPECT_EQ(r.exit_code, c.exit_code) << "case " << c.name;
    }
}

class FgraphTraceCmd31 : public testing::TestWithParam<Case> {};
TEST_P(FgraphTraceCmd31, MatchesTraceCmd) {
    run_case(GetParam(), "3.1");
}
INSTANTIATE_TEST_SUITE_P(Cases, FgraphTraceCmd31, testing::ValuesIn(cases("cases.tsv")), param_name);

class FgraphTraceCmd34 : public testing::TestWithParam<Case> {};
TEST_P(FgraphTraceCmd34, MatchesTraceCmd34) {
    run_case(GetParam(), "3.4");
}
INSTANTIATE_TEST_SUITE_P(Cases, FgraphTraceCmd34, testing::ValuesIn(cases("cases-3.4.tsv")), param_name);

// The committed oracles are what trace-cmd prints now (a changed reference shows up here).
TEST_P(FgraphTraceCmd31, OracleIsLiveTraceCmd) {
    const Case& c = GetParam();
    const std::string tc = find_on_path("trace-cmd");
    if (tc.empty()) GTEST_SKIP() << "trace-cmd is not installed";
    std::string want, error;
    ASSERT_TRUE(read_expected(kData + "/" + c.expected, want, error)) << error;
    std::vector<std::string> args = {"report"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const RunResult r = run_program(tc, args, kData, kTimeout);
    expect_same(want, r, "trace-cmd " + show(c.args));
}

// A real function_graph trace (i386, 4.13, funcgraph_exit's fields out of offset order).
constexpr const char* kReal = "wsdias_funcgraph_i386.dat";

TEST(FgraphRealTrace, MatchesTraceCmd31) {
    if (!fs::exists(kExternal + "/" + kReal)) GTEST_SKIP() << kExternal << " is not there";
    const std::string tc = find_on_path("trace-cmd");
    if (tc.empty()) GTEST_SKIP() << "trace-cmd is not installed";
    compat("3.1");
    for (std::vector<std::string> args : {std::vector<std::string>{kReal},
                                          {"-O", "fgraph:tailprint", "-O", "depth", kReal},
                                          {"-N", kReal},
                                          {"-t", kReal}}) {
        std::vector<std::string> tc_args = {"report"};
        tc_args.insert(tc_args.end(), args.begin(), args.end());
        const RunResult want = run_oracle(tc, tc_args, kExternal, kTimeout);
        ASSERT_EQ(want.exit_code, 0) << want.err;
        expect_same(want.out, report(args, kExternal), show(args));
    }
}

TEST(FgraphRealTrace, MatchesTraceCmd34ApartFromTheFlagsColumn) {
    const std::string want_file = kOutputs34 + "/external-traces_" + kReal + ".report";
    if (!fs::exists(kExternal + "/" + kReal) || !fs::exists(want_file))
        GTEST_SKIP() << "../shared is not there";
    std::string want, error;
    ASSERT_TRUE(read_expected(want_file, want, error)) << error;
    compat("3.4");
    RunResult r = report({kReal}, kExternal);
    // Once ringscope prints the column (--compat 3.4), drop it from both sides.
    r.out = without_flags_column(r.out);
    expect_same(without_flags_column(want), r, show({kReal}));
}

}  // namespace
}  // namespace ringscope::conformance
