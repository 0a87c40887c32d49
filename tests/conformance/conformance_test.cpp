// Conformance: `ringscope report ARGS` against trace-cmd 3.1.6's output, and ringscope's ports of the
// man-page examples against the C examples built on Debian's libtracecmd/libtraceevent, one test per
// line of tests/data/traces/cases.tsv and examples.tsv. The Live suites re-run the reference tools (when
// installed) and compare with the committed raw oracles, so a changed reference shows up.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "manifest.hpp"
#include "process.hpp"
#include "text_compare.hpp"

namespace ringscope::conformance {
namespace {

namespace fs = std::filesystem;

// RINGSCOPE_CONFORMANCE_DATA points the suites at another copy of tests/data, e.g. one with fresh
// recordings and their oracles (fresh_recordings.sh).
const std::string kData = [] {
    const char* dir = std::getenv("RINGSCOPE_CONFORMANCE_DATA");
    return std::string(dir && *dir ? dir : RINGSCOPE_TEST_DATA_DIR);
}();
const std::string kBinary = RINGSCOPE_BINARY_DIR;
constexpr int kTimeoutSeconds = 120;

const std::vector<Case>& report_cases() {
    static const std::vector<Case> cases =
        load_cases(kData + "/traces/cases.tsv", false, kData + "/traces/raw-oracles.tsv");
    return cases;
}

const std::vector<Case>& example_cases() {
    static const std::vector<Case> cases =
        load_cases(kData + "/traces/examples.tsv", true, kData + "/traces/raw-examples.tsv");
    return cases;
}

// `@xz:PATH` words become a decompressed copy in a private temporary directory (made once per process).
class XzArgs {
  public:
    ~XzArgs() {
        std::error_code ec;
        if (!dir_.empty()) fs::remove_all(dir_, ec);
    }

    bool expand(const std::vector<std::string>& in, std::vector<std::string>& out, std::string& error) {
        out.clear();
        for (const auto& w : in) {
            if (!w.starts_with("@xz:")) {
                out.push_back(w);
                continue;
            }
            std::string rel = w.substr(4);
            auto it = done_.find(rel);
            if (it == done_.end()) {
                if (dir_.empty()) {
                    std::string templ = (fs::temp_directory_path() / "ringscope-conformance.XXXXXX").string();
                    if (mkdtemp(templ.data()) == nullptr) {
                        error = "mkdtemp failed";
                        return false;
                    }
                    dir_ = templ;
                }
                std::string text;
                if (!read_expected(kData + "/" + rel, text, error)) return false;
                std::string plain =
                    dir_ + "/" + std::to_string(done_.size()) + "-" + fs::path(rel).stem().string();
                FILE* f = std::fopen(plain.c_str(), "wb");
                if (f == nullptr || std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
                    if (f != nullptr) std::fclose(f);
                    error = plain + ": cannot write";
                    return false;
                }
                std::fclose(f);
                it = done_.emplace(rel, plain).first;
            }
            out.push_back(it->second);
        }
        return true;
    }

  private:
    std::string dir_;
    std::map<std::string, std::string> done_;
};

XzArgs& xz_args() {
    static XzArgs instance;
    return instance;
}

// traces/known-differences.tsv: CASE<TAB>MIN_SHARE<TAB>EXIT<TAB>REASON. Cases that do not match
// (yet, or on purpose), with the share of identical lines they must keep and, when EXIT is not "-",
// the exit code ringscope gives instead of the oracle's; everything else must match byte for byte.
struct KnownDifference {
    double min_share = 0;
    int exit_code = -1;
    std::string reason;
};

const KnownDifference* known_difference(const std::string& case_name) {
    static const std::map<std::string, KnownDifference> known = [] {
        std::map<std::string, KnownDifference> m;
        std::ifstream in(kData + "/traces/known-differences.tsv");
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] == '#') continue;
            std::istringstream fields(line);
            std::string name, share, exit_code, reason;
            std::getline(fields, name, '\t');
            std::getline(fields, share, '\t');
            std::getline(fields, exit_code, '\t');
            std::getline(fields, reason);
            m[name] = {std::stod(share), exit_code == "-" ? -1 : std::stoi(exit_code), reason};
        }
        return m;
    }();
    auto it = known.find(case_name);
    return it == known.end() ? nullptr : &it->second;
}

std::string command_line(const std::string& program, const std::vector<std::string>& args) {
    std::string s = program;
    for (const auto& a : args) s += a.find(' ') == std::string::npos ? " " + a : " '" + a + "'";
    return s;
}

// Runs `program args` in tests/data and compares stdout (and the exit code when `exit_code` >= 0).
// `ours`: the program is ringscope's (known differences apply), not the reference tool.
void expect_output(const std::string& program, const std::vector<std::string>& raw_args,
                   const std::string& expected, int exit_code, const std::string& case_name, bool ours) {
    std::vector<std::string> args;
    std::string error;
    ASSERT_TRUE(xz_args().expand(raw_args, args, error)) << error;
    std::string want;
    ASSERT_TRUE(read_expected(kData + "/" + expected, want, error)) << error;

    RunResult r = run_program(program, args, kData, kTimeoutSeconds);
    const std::string cmd = "cd " + kData + " && " + command_line(program, args);
    ASSERT_TRUE(r.error.empty()) << r.error << "\n  " << cmd;
    ASSERT_FALSE(r.timed_out) << "no result after " << kTimeoutSeconds << " s\n  " << cmd;
    Comparison c = compare_text(want, r.out);
    const KnownDifference* known = ours ? known_difference(case_name) : nullptr;
    if (known && known->exit_code >= 0) exit_code = known->exit_code;
    if (known && !c.identical) {
        // A listed gap: it may not grow (the share of identical lines may not drop below the floor).
        const double share = c.expected_lines ? static_cast<double>(c.same_position) / c.expected_lines : 0.0;
        EXPECT_GE(share + 1e-9, known->min_share)
            << "case " << case_name << ": only " << share
            << " of the lines are identical, below the recorded " << known->min_share << " (" << known->reason
            << ")\n  " << cmd << "\n"
            << c.report;
        std::printf("[ KNOWN    ] %s: %.4f of %zu lines identical (floor %.4f): %s\n", case_name.c_str(),
                    share, c.expected_lines, known->min_share, known->reason.c_str());
    } else {
        EXPECT_TRUE(c.identical) << "case " << case_name << ": stdout differs from " << expected << "\n  "
                                 << cmd << "\n"
                                 << c.report << (r.err.empty() ? "" : "stderr:\n" + r.err.substr(0, 2000));
        EXPECT_TRUE(!known || known->exit_code >= 0)
            << "case " << case_name << " now matches: remove it from traces/known-differences.tsv";
    }
    if (exit_code >= 0) {
        EXPECT_EQ(r.exit_code, exit_code) << "case " << case_name << ": exit code\n  " << cmd << "\n"
                                          << (r.err.empty() ? "" : "stderr:\n" + r.err.substr(0, 2000));
    }
}

bool executable(const std::string& path) {
    return access(path.c_str(), X_OK) == 0;
}

std::string param_name(const testing::TestParamInfo<Case>& info) {
    return test_name(info.param.name);
}

// --- ringscope report vs trace-cmd report (corrected where the plugin tables are stale) ---

class Report : public testing::TestWithParam<Case> {};

TEST_P(Report, MatchesTraceCmd) {
    const Case& c = GetParam();
    ASSERT_TRUE(c.error.empty()) << c.error;
    const std::string bin = kBinary + "/ringscope";
    ASSERT_TRUE(executable(bin))
        << "case " << c.name << ": " << bin
        << " is not built (yet): build the `ringscope` target; this case cannot pass without it";
    std::vector<std::string> args = {"report"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    expect_output(bin, args, c.expected, c.exit_code, c.name, true);
}

INSTANTIATE_TEST_SUITE_P(Traces, Report, testing::ValuesIn(report_cases()), param_name);

// --- the reference itself: trace-cmd report still prints the committed raw oracle ---

class ReportLive : public testing::TestWithParam<Case> {};

TEST_P(ReportLive, TraceCmdStillPrintsTheOracle) {
    const Case& c = GetParam();
    ASSERT_TRUE(c.error.empty()) << c.error;
    static const std::string trace_cmd = find_on_path("trace-cmd");
    if (trace_cmd.empty()) GTEST_SKIP() << "trace-cmd is not installed: no live differential";
    ASSERT_FALSE(c.raw.empty()) << "case " << c.name << " has no line in traces/raw-oracles.tsv";
    std::vector<std::string> args = {"report"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    expect_output(trace_cmd, args, c.raw, c.exit_code, c.name, false);
}

INSTANTIATE_TEST_SUITE_P(Traces, ReportLive, testing::ValuesIn(report_cases()), param_name);

// --- sdk/examples ports vs the C examples ---

class Example : public testing::TestWithParam<Case> {};

TEST_P(Example, MatchesCExample) {
    const Case& c = GetParam();
    ASSERT_TRUE(c.error.empty()) << c.error;
    const std::string bin = kBinary + "/sdk/examples/" + c.program;
    ASSERT_TRUE(executable(bin)) << "case " << c.name << ": " << bin << " is not built (yet): build the `"
                                 << c.program << "` example; this case cannot pass without it";
    expect_output(bin, c.args, c.expected, -1, c.name, true);
}

INSTANTIATE_TEST_SUITE_P(Traces, Example, testing::ValuesIn(example_cases()), param_name);

class ExampleLive : public testing::TestWithParam<Case> {};

TEST_P(ExampleLive, CExampleStillPrintsTheOracle) {
    const Case& c = GetParam();
    ASSERT_TRUE(c.error.empty()) << c.error;
    const std::string bin = kBinary + "/tests/oracles/" + c.program;
    if (!executable(bin)) {
        GTEST_SKIP() << bin << " not built (libtracecmd/libtraceevent not installed): no live differential";
    }
    ASSERT_FALSE(c.raw.empty()) << "case " << c.name << " has no line in traces/raw-examples.tsv";
    expect_output(bin, c.args, c.raw, -1, c.name, false);
}

INSTANTIATE_TEST_SUITE_P(Traces, ExampleLive, testing::ValuesIn(example_cases()), param_name);

}  // namespace
}  // namespace ringscope::conformance
