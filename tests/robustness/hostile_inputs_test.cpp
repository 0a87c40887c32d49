// The hostile inputs of issue 25 (the input side), made afresh by
// tests/robustness/hostile/make_hostile_inputs.py: print fmts nested 20k deep, widths of 2^31,
// sections and chunks that declare gigabytes, pages of 64 MiB, CPU counts of 2^31, /dev/zero,
// a pipe, filters glibc crashed on. Each run of the CLI, under a 1 GiB address-space limit and
// 30 s, must end in a clean error naming the input and where, or in a result: never a signal, a
// sanitizer report or a hang. RINGSCOPE_HOSTILE_CLI=PATH runs another build (e.g. an older one,
// to see the cases fail there).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/robustness/child_process.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

struct Case {
    std::string name, expect, names, args;
};

std::vector<Case> read_cases(const fs::path& tsv) {
    std::vector<Case> out;
    std::ifstream in(tsv);
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> col;
        std::stringstream ss(line);
        for (std::string c; std::getline(ss, c, '\t');) col.push_back(c);
        if (col.size() == 4) out.push_back({col[0], col[1], col[2], col[3]});
    }
    return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

std::string last_line(std::string s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
    const size_t nl = s.rfind('\n');
    return nl == std::string::npos ? s : s.substr(nl + 1);
}

// The command line of a case, under the address-space limit (ASan reserves terabytes of address
// space, so its builds run without the limit; the replay tests bound their RSS instead).
std::vector<std::string> command(const Case& c, const std::string& cli, const fs::path& dir) {
    auto subst = [&](std::string s) {
        s = replace_all(s, "{file}", (dir / (c.name + ".dat")).string());
        s = replace_all(s, "{dir}", dir.string());
        return replace_all(s, "{ringscope}", cli);
    };
    const std::string limit = kSanitized ? "" : "ulimit -v 1048576 && ";
    if (c.args.rfind("sh:", 0) == 0) return {"/bin/sh", "-c", limit + subst(c.args.substr(3))};
    std::vector<std::string> argv{"/bin/sh", "-c", limit + "exec \"$@\"", "sh", cli};
    std::stringstream ss(c.args);
    for (std::string a; ss >> a;) argv.push_back(subst(a));
    return argv;
}

TEST(HostileInputs, EachEndsInACleanErrorOrAResult) {
    std::string cli = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    if (const char* other = std::getenv("RINGSCOPE_HOSTILE_CLI")) cli = other;
    if (!fs::exists(cli)) GTEST_SKIP() << cli << " is not built";
    const fs::path dir = fs::path(::testing::TempDir()) / ("ringscope-hostile-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string script =
        std::string(RINGSCOPE_SOURCE_DIR) + "/tests/robustness/hostile/make_hostile_inputs.py";
    auto made = ringscope::testing::run_child({"/usr/bin/env", "python3", script, dir.string()}, {}, 120s, "",
                                              (dir / "make.err").string());
    ASSERT_EQ(made.exit_code, 0) << made.err;
    const std::vector<Case> cases = read_cases(dir / "cases.tsv");
    ASSERT_GE(cases.size(), 20u);

    const auto plain = ringscope::testing::run_child({cli, "report", (dir / "plain.dat").string()},
                                                     ringscope::testing::sanitizer_env(), 120s,
                                                     (dir / "plain.out").string(), (dir / "err").string());
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_NE(plain.out.find("probe:"), std::string::npos) << plain.out;

    const auto timeout = kSanitized ? 120s : 30s;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name + " (" + c.args.substr(0, 120) + ")");
        const auto r =
            ringscope::testing::run_child(command(c, cli, dir), ringscope::testing::sanitizer_env(), timeout,
                                          (dir / "out").string(), (dir / "err").string());
        ASSERT_EQ(r.fault(), "") << r.err.substr(0, 2000);
        const std::string names = replace_all(
            replace_all(c.names, "{file}", (dir / (c.name + ".dat")).string()), "{dir}", dir.string());
        if (c.expect == "error") {
            EXPECT_NE(r.exit_code, 0);
            const std::string last = last_line(r.err);
            EXPECT_NE(last.find(names), std::string::npos) << r.err.substr(0, 2000);
            EXPECT_TRUE(std::regex_search(last, std::regex("(offset|line|column) [0-9]"))) << last;
            EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err.substr(0, 2000);
        } else {
            EXPECT_EQ(r.exit_code, 0) << r.err.substr(0, 2000);
            EXPECT_FALSE(r.out.empty());
            if (names != "-") {
                EXPECT_NE(r.err.find(names), std::string::npos) << r.err.substr(0, 2000);
            }
            if (c.expect == "same-as-plain") {
                EXPECT_EQ(r.out, plain.out);
            }
        }
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
}

}  // namespace
