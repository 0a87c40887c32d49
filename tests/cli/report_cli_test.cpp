// trace-cmd report's options that ringscope used to accept and ignore: -T, -V/--verbose, -L, and
// the -O list of --help.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "cli_run.hpp"
#include "tests/support/file_text.hpp"

namespace ringscope::cli_test {
namespace {

bool have_trace_cmd() {
    return std::system("command -v trace-cmd >/dev/null 2>&1") == 0;
}

std::string trace_cmd(const std::string& args) {
    const std::string out =
        std::filesystem::temp_directory_path().string() + "/cli-test-tc-" + std::to_string(::getpid());
    std::system(("trace-cmd report " + args + " > '" + out + "' 2>/dev/null").c_str());
    std::string text = test::read_file(out);
    std::filesystem::remove(out);
    return text;
}

TEST(ReportOptions, FilterTestPrintsTheCompiledFilters) {
    const std::string args =
        "-T -F 'sched_switch: prev_pid == 0' -F sched_wakeup '" + trace("basic.dat") + "'";
    const Outcome r = ringscope("report " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, " 'sched_switch: prev_pid == 0'\n 'sched_wakeup: TRUE'\n");
    if (have_trace_cmd()) {
        EXPECT_EQ(r.out, trace_cmd(args));
    }
}

TEST(ReportOptions, FilterTestOfASystemAsTraceCmd) {
    if (!have_trace_cmd()) GTEST_SKIP() << "no trace-cmd";
    const std::string args = "-T -F 'sched: prev_pid == 0' '" + trace("basic.dat") + "'";
    const Outcome r = ringscope("report " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, trace_cmd(args));
}

TEST(ReportOptions, VerboseLevels) {
    const std::string t = " '" + trace("basic.dat") + "'";
    const Outcome plain = ringscope("report" + t);
    ASSERT_EQ(plain.status, 0);
    for (const char* o : {"-V", "--verbose", "--verbose=info", "--verbose=6"}) {
        const Outcome r = ringscope(std::string("report ") + o + t);
        EXPECT_EQ(r.status, 0) << o;
        EXPECT_EQ(r.out.rfind("version = 7\n", 0), 0u) << o;
        EXPECT_NE(r.out.find(plain.out), std::string::npos) << o;
    }
    for (const char* o : {"--verbose=none", "--verbose=3", "--verbose=warn"}) {
        const Outcome r = ringscope(std::string("report ") + o + t);
        EXPECT_EQ(r.out, plain.out) << o;
    }
    const Outcome bad = ringscope("report --verbose=bogus" + t);
    EXPECT_EQ(bad.status, 255);
    EXPECT_NE(bad.err.find("invalid verbose level bogus"), std::string::npos) << bad.err;
}

// -L: only "local" plugins (--plugin-dir, RINGSCOPE_PLUGIN_PATH), none of the build's: as trace-cmd
// without ~/.trace-cmd/plugins, the events print with their own formats.
TEST(ReportOptions, LocalPluginsOnly) {
    const std::string t = " '" + trace("basic.dat") + "'";
    const Outcome l = ringscope("report -L" + t);
    const Outcome n = ringscope("report -N" + t);
    const Outcome plain = ringscope("report" + t);
    ASSERT_EQ(l.status, 0) << l.err;
    EXPECT_EQ(l.out, n.out);
    EXPECT_NE(l.out, plain.out);
    const Outcome with_dir =
        ringscope("--plugin-dir '" + std::string(RINGSCOPE_BINARY_DIR) + "/plugins' report -L" + t);
    EXPECT_EQ(with_dir.out, plain.out);
}

// The "group:"/"task:"/"Global ..." blocks of a --profile output, each as its sorted lines (trace-cmd lists
// its groups in the order of their addresses in memory).
std::map<std::string, std::vector<std::string>> profile_blocks(const std::string& text) {
    std::map<std::string, std::vector<std::string>> out;
    std::vector<std::string>* block = nullptr;
    for (const auto& l : lines(text)) {
        if (l.starts_with("group: ") || l.starts_with("task: ") || l.starts_with("Global ")) {
            block = &out[l];
        } else if (block && !l.empty()) {
            block->push_back(l);
        }
    }
    for (auto& [name, b] : out) std::sort(b.begin(), b.end());
    return out;
}

TEST(ReportOptions, ProfileByCommGroupsAsTraceCmd) {
    const std::string t = " '" + trace("basic.dat") + "'";
    const Outcome r = ringscope("report --profile --by-comm -O sched:legacy_states" + t);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto got = profile_blocks(r.out);
    EXPECT_GT(got.size(), 10u);
    for (const auto& [name, b] : got) EXPECT_TRUE(name.starts_with("group: ")) << name;
    if (have_trace_cmd()) {
        EXPECT_EQ(got, profile_blocks(trace_cmd("--profile --by-comm" + t)));
    }
    EXPECT_EQ(ringscope("report --by-comm" + t).status, 255);  // only with --profile
}

// --profile's sched_switch states: the kernel's letters, or trace-cmd's own stale table with
// -O sched:legacy_states (K where the kernel says I).
TEST(ReportOptions, ProfileStatesWithLegacyLettersAsTraceCmd) {
    const std::string t = " '" + trace("basic.dat") + "'";
    const Outcome kernel = ringscope("report --profile" + t);
    const Outcome legacy = ringscope("report --profile -O sched:legacy_states" + t);
    EXPECT_NE(kernel.out.find("sched_switch:I "), std::string::npos);
    EXPECT_EQ(legacy.out.find("sched_switch:I "), std::string::npos);
    EXPECT_NE(legacy.out.find("sched_switch:K "), std::string::npos);
    if (have_trace_cmd()) {
        EXPECT_EQ(profile_blocks(legacy.out), profile_blocks(trace_cmd("--profile" + t)));
    }
}

// -G: the irq and softirq pairs in "Global CPU[N] Events" blocks, not in the tasks.
TEST(ReportOptions, ProfileGlobalIrqsAsTraceCmd) {
    const std::string t = " '" + trace("full.dat") + "'";
    const Outcome g = ringscope("report --profile -G -O sched:legacy_states" + t);
    ASSERT_EQ(g.status, 0) << g.err;
    const auto blocks = profile_blocks(g.out);
    ASSERT_TRUE(blocks.count("Global CPU[0] Events")) << g.out.substr(0, 2000);
    for (const auto& [name, lines] : blocks) {
        if (!name.starts_with("task: ")) continue;
        for (const auto& l : lines) EXPECT_EQ(l.find("irq"), std::string::npos) << name << ": " << l;
    }
    // Without -G the same pairs stay in the tasks.
    EXPECT_EQ(ringscope("report --profile" + t).out.find("Global CPU"), std::string::npos);
    if (have_trace_cmd()) {
        EXPECT_EQ(blocks, profile_blocks(trace_cmd("--profile -G" + t)));
    }
}

// -H: trace-cmd prints each hook as it reads it; --profile times the pairs it names.
TEST(ReportOptions, EventHooksAsTraceCmd) {
    const std::string t = " '" + trace("basic.dat") + "'";
    const std::string hook = " -H 'sched:sched_waking,pid/sched:sched_switch,next_pid'";
    const Outcome plain = ringscope("report" + t);
    const Outcome h = ringscope("report" + hook + t);
    ASSERT_EQ(h.status, 0) << h.err;
    EXPECT_EQ(h.out,
              "start sched:sched_waking:pid ((null)) end sched:sched_switch:next_pid ((null))\n" + plain.out);
    const Outcome two = ringscope("report -H 'sched_waking,pid,pid/sched_switch,next_pid,pG'" + t);
    EXPECT_EQ(lines(two.out).at(0),
              "start (null):sched_waking:pid (pid) end (null):sched_switch:next_pid (pG)");
    const Outcome profile = ringscope("report --profile -O sched:legacy_states" + hook + t);
    ASSERT_EQ(profile.status, 0) << profile.err;
    EXPECT_NE(profile.out.find("  Event: sched_waking:0x"), std::string::npos);
    EXPECT_NE(profile.out.find(" Total: "), std::string::npos);
    if (have_trace_cmd()) {
        // trace-cmd's own (stale) state letters, as the other comparisons.
        EXPECT_EQ(ringscope("report -O sched:legacy_states" + hook + t).out, trace_cmd(hook + t));
        const std::string want = trace_cmd("--profile" + hook + t);
        EXPECT_EQ(lines(profile.out).at(0), lines(want).at(0));
        EXPECT_EQ(profile_blocks(profile.out), profile_blocks(want));
    }
    // A malformed hook is refused (trace-cmd 3.1.6 crashes on it).
    const Outcome bad = ringscope("report -H garbage" + t);
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.err.find("Invalid hook format 'garbage'"), std::string::npos) << bad.err;
}

TEST(ReportOptions, HelpListsPrintOptionsAndTheSelection) {
    const Outcome r = ringscope("report --help");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("-O sched:legacy_states"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--from S"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ringscope::cli_test
