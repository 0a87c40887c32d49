// Committed reproducers of corrupt-input faults (tests/robustness/regressions/NAME.dat with
// NAME.expect, see the README there): each is run through `ringscope report` and must end as its
// .expect file says, and never with a signal, a sanitizer report or a hang.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/robustness/child_process.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const fs::path kDir = fs::path(RINGSCOPE_SOURCE_DIR) / "tests" / "robustness" / "regressions";

struct Expectation {
    std::vector<std::string> args{"report", "{file}"};
    int exit_code = 1;
    std::string stderr_last;       // regex for the last stderr line ("{file}" = the input)
    long stdout_lines = -1;        // exact line count when >= 0
    std::string stdout_prefix_of;  // a committed trace whose report the output must begin with
};

Expectation read_expect(const fs::path& p) {
    Expectation e;
    std::ifstream in(p);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const size_t colon = line.find(": ");
        if (colon == std::string::npos) continue;
        const std::string key = line.substr(0, colon), value = line.substr(colon + 2);
        if (key == "exit") e.exit_code = std::stoi(value);
        if (key == "stderr") e.stderr_last = value;
        if (key == "stdout-lines") e.stdout_lines = std::stol(value);
        if (key == "stdout-prefix-of") e.stdout_prefix_of = value;
        if (key == "args") {
            e.args.clear();
            for (size_t i = 0; i < value.size();) {
                size_t sp = value.find(' ', i);
                if (sp == std::string::npos) sp = value.size();
                if (sp > i) e.args.push_back(value.substr(i, sp - i));
                i = sp + 1;
            }
        }
    }
    return e;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

std::vector<fs::path> cases() {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(kDir, ec))
        if (entry.path().extension() == ".expect") out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(RobustnessRegressions, EachReproducerEndsAsExpected) {
    const std::string cli = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    if (!fs::exists(cli)) GTEST_SKIP() << cli << " is not built";
    const std::vector<fs::path> all = cases();
    ASSERT_FALSE(all.empty()) << "no reproducers in " << kDir;
    const fs::path tmp = fs::path(::testing::TempDir()) / ("ringscope-regress-" + std::to_string(getpid()));
    fs::create_directories(tmp);
    for (const fs::path& expect_path : all) {
        SCOPED_TRACE(expect_path.filename().string());
        const Expectation e = read_expect(expect_path);
        fs::path input = expect_path;
        input.replace_extension(".dat");
        ASSERT_TRUE(fs::exists(input)) << input;
        std::vector<std::string> argv{cli};
        for (const auto& a : e.args) argv.push_back(replace_all(a, "{file}", input.string()));
        const auto r = ringscope::testing::run_child(argv, ringscope::testing::sanitizer_env(), 120s,
                                                     (tmp / "out").string(), (tmp / "err").string());
        ASSERT_EQ(r.fault(), "") << r.err;
        EXPECT_EQ(r.exit_code, e.exit_code) << r.err;
        if (!e.stderr_last.empty()) {
            std::string err = r.err;
            while (!err.empty() && err.back() == '\n') err.pop_back();
            const size_t nl = err.rfind('\n');
            const std::string last = nl == std::string::npos ? err : err.substr(nl + 1);
            // The input path is literal text inside the pattern.
            const std::string quoted =
                std::regex_replace(input.string(), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
            EXPECT_TRUE(std::regex_search(last, std::regex(replace_all(e.stderr_last, "{file}", quoted))))
                << last;
        }
        if (e.stdout_lines >= 0) {
            EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), e.stdout_lines);
        }
        if (!e.stdout_prefix_of.empty()) {
            const std::string full_trace = std::string(RINGSCOPE_TEST_DATA_DIR) + "/" + e.stdout_prefix_of;
            const auto full = ringscope::testing::run_child({cli, "report", full_trace},
                                                            ringscope::testing::sanitizer_env(), 120s,
                                                            (tmp / "full").string(), (tmp / "err").string());
            ASSERT_EQ(full.exit_code, 0) << full.err;
            // What was printed before the error is the valid part of the full report: whole lines,
            // except the "cpus=" header, which may differ when a CPU's data is gone.
            const std::string out = r.out.substr(std::min(r.out.size(), r.out.find('\n') + 1));
            const std::string ref = full.out.substr(std::min(full.out.size(), full.out.find('\n') + 1));
            EXPECT_EQ(ref.compare(0, out.size(), out), 0) << "the output is not a prefix of the full report";
        }
    }
    std::error_code ec;
    fs::remove_all(tmp, ec);
}

}  // namespace
