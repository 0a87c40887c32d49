// Runs every case of libipt's own test corpus (../shared/conformance/ipt/libipt-suite, see its
// README) through `ringscope ipt dump` and compares with the expected ptdump output the way
// libipt's test script does: `diff -ub` (runs of blanks compare equal, trailing blanks ignored).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ipt/ptdump.hpp"
#include "ipt_suite_text.hpp"

namespace fs = std::filesystem;

namespace {

fs::path suite_dir() {
    if (const char* env = std::getenv("RINGSCOPE_SHARED_DIR"))
        return fs::path(env) / "conformance/ipt/libipt-suite";
    return fs::path(RINGSCOPE_SHARED_DIR) / "conformance/ipt/libipt-suite";
}

using namespace ipt_suite;

std::string run_dump(const std::vector<std::string>& args, int& code) {
    char* buf = nullptr;
    size_t len = 0;
    std::FILE* out = open_memstream(&buf, &len);
    std::FILE* err = std::tmpfile();
    code = ringscope::ipt::ptdump_main(args, out, err);
    std::fclose(out);
    std::fclose(err);
    std::string text(buf, len);
    std::free(buf);
    return text;
}

TEST(IptConformance, LibiptSuitePtdump) {
    fs::path dir = suite_dir();
    if (!fs::exists(dir / "manifest.tsv")) GTEST_SKIP() << "no corpus at " << dir;
    std::ifstream manifest(dir / "manifest.tsv");
    std::string line;
    int total = 0, matched = 0, exact = 0;
    std::vector<std::string> failures;
    while (std::getline(manifest, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto cols = split(line, '\t');
        ASSERT_GE(cols.size(), 3u) << line;
        std::vector<std::string> args;
        for (auto& a : split(cols[2], ' '))
            if (!a.empty()) args.push_back(a);
        args.push_back((dir / cols[1]).string());
        int code = 0;
        std::string got = run_dump(args, code);
        std::string want = read_file(dir / cols[0]);
        ++total;
        if (got == want) ++exact;
        if (normalized_lines(got) == normalized_lines(want) && code == 0) {
            ++matched;
        } else {
            failures.push_back(cols[0]);
            if (failures.size() <= 3) {
                ADD_FAILURE() << cols[0] << " (exit " << code << ") differs.\n--- expected\n"
                              << want << "--- got\n"
                              << got;
            }
        }
    }
    std::printf("ipt conformance: %d/%d expected outputs match under diff -ub (%d byte-identical)\n", matched,
                total, exact);
    for (auto& f : failures) std::printf("  mismatch: %s\n", f.c_str());
    EXPECT_EQ(total, 479);
    EXPECT_EQ(matched, total);
}

}  // namespace
