// `ringscope ipt flow` on libipt's own ptxed expectations (../shared/conformance/ipt/libipt-suite,
// skipped without it): every run of manifest-ptxed.tsv, its argument vector as libipt's harness
// passes it, the output compared as `diff -ub` compares (runs of blanks equal, trailing blanks
// ignored). The suite follows libipt master, as `ipt flow` does by default; with --compat 2.0.5 it
// follows libipt 2.0.5's decoder, which decodes fewer of them (588 of the 860 with Debian's
// libipt: bench/reference/ptxed_libipt.c). The test reports the count, writes the runs that
// differ to build/tests/ipt_flow_suite.failures and fails when they are not exactly the pending
// runs of ipt_flow_suite_pending.tsv (NAME, tab, argv; a run that starts to match is taken off the
// list; it is empty now), and when fewer than kFloor match.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ipt/flow.hpp"
#include "ipt_suite_text.hpp"

namespace fs = std::filesystem;

namespace {

constexpr size_t kFloor = 860;
constexpr size_t kReferenceFloor = 696;

using namespace ipt_suite;

// Runs `ipt flow` with argv, files named relative to dir; its standard output.
std::string run_flow(const fs::path& dir, const std::vector<std::string>& argv, int& rc) {
    std::vector<std::string> args;
    for (size_t i = 0; i < argv.size(); ++i) {
        args.push_back(argv[i]);
        if ((argv[i] == "--raw" || argv[i] == "--pt") && i + 1 < argv.size())
            args.push_back((dir / argv[++i]).string());
    }
    char* text = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    std::FILE* err = std::tmpfile();
    rc = ringscope::ipt::flow_main(args, out, err);
    std::fclose(out);
    std::fclose(err);
    std::string result(text, size);
    std::free(text);
    return result;
}

fs::path suite_dir() {
    return fs::path(RINGSCOPE_SHARED_DIR) / "conformance/ipt/libipt-suite";
}

// Every run of manifest-ptxed.tsv: same(expected file, argv, our output) says whether it passes.
// The runs, the passes, and the failures written to build/tests/NAME.
template <class Same>
std::pair<size_t, size_t> each_run(const char* name, Same same) {
    const fs::path dir = suite_dir();
    std::ifstream manifest(dir / "manifest-ptxed.tsv");
    std::string row, failures;
    size_t runs = 0, passed = 0;
    while (std::getline(manifest, row)) {
        if (row.empty() || row[0] == '#') continue;
        const std::vector<std::string> cols = split(row, '\t');
        EXPECT_GE(cols.size(), 5u) << row;
        if (cols.size() < 5) continue;
        const std::vector<std::string> argv = split(cols[4], ' ');
        int rc = 0;
        const std::string got = run_flow(dir, argv, rc);
        ++runs;
        if (rc == 0 && same(dir / cols[0], argv, got))
            ++passed;
        else
            failures += cols[0] + "\t" + cols[4] + "\n";
    }
    std::ofstream(fs::path(RINGSCOPE_BINARY_DIR) / "tests" / name) << failures;
    return {runs, passed};
}

TEST(IptFlowSuite, PtxedExpectations) {
    if (!fs::exists(suite_dir() / "manifest-ptxed.tsv")) GTEST_SKIP() << suite_dir() << " is absent";
    auto [runs, matched] =
        each_run("ipt_flow_suite.failures", [](const fs::path& exp, const auto&, const std::string& got) {
            return normalized_lines(got) == normalized_lines(read_file(exp));
        });
    std::printf("ipt flow: %zu of %zu ptxed expectations match\n", matched, runs);
    RecordProperty("matched", static_cast<int>(matched));
    EXPECT_EQ(runs, 860u);
    EXPECT_GE(matched, kFloor);
    // The runs that fail, exactly: a newly failing run and a newly passing one are both news.
    auto lines = [](const fs::path& file) {
        std::vector<std::string> v = split(read_file(file), '\n');
        v.erase(std::remove(v.begin(), v.end(), std::string()), v.end());
        std::sort(v.begin(), v.end());
        return v;
    };
    const std::vector<std::string> failed =
        lines(fs::path(RINGSCOPE_BINARY_DIR) / "tests/ipt_flow_suite.failures");
    const std::vector<std::string> pending =
        lines(fs::path(RINGSCOPE_SOURCE_DIR) / "tests/ipt/ipt_flow_suite_pending.tsv");
    for (const std::string& f : failed)
        EXPECT_TRUE(std::binary_search(pending.begin(), pending.end(), f)) << "fails, not pending: " << f;
    for (const std::string& p : pending)
        EXPECT_TRUE(std::binary_search(failed.begin(), failed.end(), p)) << "pending, now matches: " << p;
}

#if defined(RINGSCOPE_PTXED_LIBIPT)
// libipt 2.0.5's output for argv, run in the suite's folder.
std::string libipt_output(const std::vector<std::string>& argv) {
    std::string command = "cd '" + suite_dir().string() + "' && '" RINGSCOPE_PTXED_LIBIPT "'";
    for (const std::string& a : argv) command += " '" + a + "'";
    std::string out;
    std::FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    pclose(pipe);
    return out;
}

// The same runs against libipt 2.0.5's decoder, ours with --compat 2.0.5: the count of identical
// outputs, the others in build/tests/ipt_flow_reference.failures.
TEST(IptFlowSuite, SameAsLibipt) {
    if (!fs::exists(suite_dir() / "manifest-ptxed.tsv")) GTEST_SKIP() << suite_dir() << " is absent";
    auto [runs, same] =
        each_run("ipt_flow_reference.failures",
                 [](const fs::path& exp, const std::vector<std::string>& argv, const std::string&) {
                     // Options libipt 2.0.5's ptxed does not have: the same is ours without them.
                     auto master_only = [](const std::string& a) {
                         return a == "--resync-on-error" || a == "--insn:keep-tcal-on-ovf" ||
                                a == "--block:keep-tcal-on-ovf";
                     };
                     std::vector<std::string> ours{"--compat", "2.0.5"};
                     std::remove_copy_if(argv.begin(), argv.end(), std::back_inserter(ours), master_only);
                     int rc = 0;
                     return run_flow(exp.parent_path(), ours, rc) == libipt_output(argv);
                 });
    std::printf("ipt flow: %zu of %zu runs print what libipt 2.0.5 prints\n", same, runs);
    RecordProperty("same", static_cast<int>(same));
    EXPECT_EQ(runs, 860u);
    EXPECT_GE(same, kReferenceFloor);
}
#endif

}  // namespace
