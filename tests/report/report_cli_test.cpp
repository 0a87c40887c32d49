// `ringscope report` end to end, through the built binary:
//  - the committed trace-cmd oracles of the cases that involve no plugin (-N, listings, errors);
//  - when trace-cmd is installed, every case of cases.tsv with -N against a live trace-cmd run;
//  - errors (one line naming the file and offset), exit codes, pinned trace-cmd quirks;
//  - --format json / csv.
// -j: report_parallel_test.cpp.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/report/report_cli_support.hpp"

namespace {

using namespace report_cli;

std::string expected_output(const Case& c) {
    if (c.expected.size() > 3 && c.expected.compare(c.expected.size() - 3, 3, ".xz") == 0)
        return run_shell("xzcat " + shell_quote(c.expected)).out;
    return ringscope::test::read_file(kData + "/" + c.expected);
}

// Cases whose output no plugin changes: their oracle must match byte for byte.
bool plugin_free(const Case& c) {
    static const std::regex re(
        "(-N|-stat|-uname|-version|-cpus|-first-event|-last-event|-e|-E|-f|-P|-error.*)$|(^| )-N( |$)");
    return std::regex_search(c.name, re) || std::regex_search(c.args, std::regex("(^| )-N( |$)"));
}

TEST(ReportConformance, PluginFreeOraclesMatch) {
    auto all = cases();
    if (all.empty()) GTEST_SKIP() << "no cases.tsv";
    size_t checked = 0;
    for (const auto& c : all) {
        if (!plugin_free(c)) continue;
        CmdResult r = report(c.args);
        const std::string want = expected_output(c);
        EXPECT_EQ(r.rc, c.rc) << c.name << ": " << r.err;
        EXPECT_TRUE(r.out == want) << c.name << ": " << identical_lines(r.out, want) << " identical lines";
        ++checked;
    }
    EXPECT_GT(checked, 10u);
}

TEST(ReportConformance, EveryCaseWithoutPluginsMatchesLiveTraceCmd) {
    if (run_shell("command -v trace-cmd >/dev/null").rc != 0) GTEST_SKIP() << "trace-cmd not installed";
    auto all = cases();
    if (all.empty()) GTEST_SKIP() << "no cases.tsv";
    for (const auto& c : all) {
        CmdResult want =
            run_shell("env -i PATH=/usr/bin:/bin HOME=/nonexistent LC_ALL=C trace-cmd report -N " + c.args);
        if (want.rc > 128 && want.rc < 255) continue;  // trace-cmd died of a signal
        CmdResult got = report("-N " + c.args);
        EXPECT_EQ(got.rc, want.rc) << c.name << ": " << got.err;
        EXPECT_TRUE(got.out == want.out)
            << c.name << ": " << identical_lines(got.out, want.out) << " identical lines";
    }
}

TEST(ReportErrors, MissingFileIsOneLineExit1) {
    CmdResult r = report("/nonexistent/trace.dat");
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
    EXPECT_NE(r.err.find("/nonexistent/trace.dat"), std::string::npos);
    EXPECT_TRUE(r.out.empty());
}

TEST(ReportErrors, BadMagicAndTruncatedNameTheOffset) {
    const std::string dir = std::filesystem::temp_directory_path() / "ringscope-report-errors";
    std::filesystem::create_directories(dir);
    {
        std::ofstream(dir + "/garbage.dat") << "this is not a trace\n";
        std::string whole = ringscope::test::read_file(kData + "/traces/basic.dat");
        std::ofstream(dir + "/trunc.dat", std::ios::binary) << whole.substr(0, whole.size() / 2);
    }
    for (const char* name : {"/garbage.dat", "/trunc.dat"}) {
        CmdResult r = report(dir + name);
        EXPECT_EQ(r.rc, 1) << name;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(dir + name), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("offset"), std::string::npos) << r.err;
    }
    std::filesystem::remove_all(dir);
}

TEST(ReportErrors, CorruptPageMidFilePrintsWhatIsValidThenTheError) {
    using namespace ringscope;
    const std::string path = std::filesystem::temp_directory_path() / "ringscope-report-corrupt.dat";
    auto copy = flat_copy("traces/basic.dat", path);
    ASSERT_TRUE(copy);
    const auto cpu0 = copy->buffers()[0].cpus[0];
    const uint64_t bad_page = cpu0.offset + 2 * 4096;  // the third page of CPU 0
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(bad_page + 8));
        const uint64_t commit = 1u << 20;  // a data size far past the page
        f.write(reinterpret_cast<const char*>(&commit), 8);
    }
    CmdResult good = report("-N traces/basic.dat");
    CmdResult r = report("-N " + path);
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    // "FILE: offset N (0x...): ..." with N inside the bad page.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, std::regex("offset ([0-9]+) ")));
    const uint64_t at = std::stoull(m[1]);
    EXPECT_GE(at, bad_page);
    EXPECT_LT(at, bad_page + 4096);
    // Everything printed is a line of the good output, in order; and something was printed.
    EXPECT_GT(r.out.size(), 1000u);
    std::stringstream got(r.out), want(good.out);
    std::string lg, lw;
    size_t matched = 0, total = 0;
    while (std::getline(got, lg)) {
        ++total;
        while (std::getline(want, lw))
            if (lw == lg) {
                ++matched;
                break;
            }
    }
    EXPECT_EQ(matched, total);
    std::filesystem::remove(path);
}

// trace-cmd report's usage() and die() exit(-1): 255, which scripts around it see.
TEST(ReportErrors, UsageErrorsAreOneLineExit255) {
    for (const char* args : {"--no-such-option traces/basic.dat", "--cpu x traces/basic.dat",
                             "--cpu 3-1 traces/basic.dat", "-v -v traces/basic.dat",
                             "--format xml traces/basic.dat", "--ts-offset 5 traces/basic.dat", "-F"}) {
        CmdResult r = report(args);
        EXPECT_EQ(r.rc, 255) << args;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << args;
    }
}

TEST(ReportErrors, FilterErrorsExitLikeTraceCmd) {
    CmdResult r = report("-F 'sched_switch: prev_pid ==' traces/basic.dat");  // trace-cmd 3.1.6 crashes here
    EXPECT_EQ(r.rc, 22);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("Error filtering"), std::string::npos);
}

// trace-cmd 3.1.6: --ts-offset (after -i) shifts the file of the last -i from the second input file
// on; the first (or only) file's offset is lost.
TEST(ReportQuirks, TsOffsetOnlyShiftsLaterFiles) {
    CmdResult plain = report("-N -i traces/basic.dat");
    CmdResult shifted = report("-N -i traces/basic.dat --ts-offset 1000000000");
    EXPECT_EQ(shifted.rc, 0);
    EXPECT_EQ(plain.out, shifted.out);
    CmdResult first = report("-N -i traces/basic.dat --ts-offset 1000000000 -i traces/full.dat");
    CmdResult none = report("-N -i traces/basic.dat -i traces/full.dat");
    EXPECT_EQ(first.out, none.out);
    CmdResult second = report("-N -i traces/basic.dat -i traces/full.dat --ts-offset 1000000000");
    EXPECT_NE(second.out.find(" full.dat:        record.sh-9031  [001]   447.140401: sys_exit_write:"),
              std::string::npos);
    EXPECT_NE(second.out.find("basic.dat:        record.sh-8664  [000]   440.458074: print:"),
              std::string::npos);
}

// trace-cmd 3.1.6 gives -F filters to the first input file only and --cpu to its first buffer only.
TEST(ReportQuirks, FiltersAndCpuListOnlyReachTheFirstFile) {
    CmdResult f = report("-N --compat 3.1 -F sched_switch -i traces/basic.dat -i traces/full.dat");
    CmdResult full = report("-N traces/full.dat");
    size_t basic_lines = 0, full_lines = 0, basic_other = 0;
    std::stringstream ss(f.out);
    std::string l;
    while (std::getline(ss, l)) {
        if (l.rfind("basic.dat: ", 0) == 0 && l.find("cpus=") == std::string::npos) {
            ++basic_lines;
            basic_other += l.find(" sched_switch: ") == std::string::npos;
        }
        if (l.rfind(" full.dat: ", 0) == 0 && l.find("cpus=") == std::string::npos) ++full_lines;
    }
    EXPECT_GT(basic_lines, 0u);
    EXPECT_EQ(basic_other, 0u);
    EXPECT_EQ(full_lines, event_lines(full.out));  // unfiltered
    CmdResult c = report("-N --cpu 1 -i traces/basic.dat -i traces/full.dat");
    EXPECT_EQ(c.out.find(" full.dat:        "), std::string::npos);
    CmdResult inst = report("-N --cpu 0 traces/instances.dat");
    EXPECT_EQ(inst.out.find("ringscope_a:  "), std::string::npos);
}

// trace-cmd 3.3 and later iterate every CPU of every file and buffer and skip the records of the
// CPUs --cpu does not list (tracecmd/trace-read.c: process_record -> skip_record, one filter_cpus
// for every handle): the output is the whole report's lines of those CPUs, in the same order,
// whatever the list's order.
TEST(ReportCompat34, CpuListReachesEveryFileAndBuffer) {
    auto keep_cpu = [](const std::string& out, const std::string& cpu) {
        std::string kept;
        std::stringstream ss(out);
        std::string l;
        while (std::getline(ss, l))
            if (l.find("cpus=") != std::string::npos || l.find(" [" + cpu + "] ") != std::string::npos)
                kept += l + "\n";
        return kept;
    };
    const std::string files = " -i traces/basic.dat -i traces/full.dat";
    const CmdResult all = report("-N --compat 3.4" + files);
    const CmdResult one = report("-N --compat 3.4 --cpu 1" + files);
    EXPECT_EQ(one.rc, 0);
    EXPECT_NE(one.out.find(" full.dat:        "), std::string::npos);
    EXPECT_EQ(one.out, keep_cpu(all.out, "001"));
    EXPECT_EQ(report("-N --compat 3.4 --cpu 1,0" + files).out,
              report("-N --compat 3.4 --cpu 0-1" + files).out);
    EXPECT_EQ(report("-N --compat 3.4 --cpu 1,0" + files).out, all.out);
    // instance buffers too
    const CmdResult inst = report("-N --compat 3.4 --cpu 0 traces/instances.dat");
    EXPECT_NE(inst.out.find("ringscope_a:  "), std::string::npos);
    EXPECT_EQ(inst.out, keep_cpu(report("-N --compat 3.4 traces/instances.dat").out, "000"));
}

// Per file name column: how many event lines of each kind ("sched_switch", "sys_exit_write", "other").
std::map<std::string, size_t> lines_by_file(const std::string& out) {
    std::map<std::string, size_t> n;
    std::stringstream ss(out);
    std::string l;
    while (std::getline(ss, l)) {
        if (l.find("cpus=") != std::string::npos) continue;
        const std::string file = l.substr(0, l.find(':'));
        const std::string kind = l.find(" sched_switch: ") != std::string::npos     ? "sched_switch"
                                 : l.find(" sys_exit_write: ") != std::string::npos ? "sys_exit_write"
                                                                                    : "other";
        ++n[file.substr(file.find_first_not_of(' ')) + " " + kind];
    }
    return n;
}

// trace-cmd 3.3 and later: -F before any -i reaches every file, -F after `-i FILE` only FILE; but
// with global filters, the first file's list is the global one, so its filters reach every file.
TEST(ReportCompat34, GlobalAndPerFileFilters) {
    const std::string files = " -i traces/basic.dat -i traces/full.dat";
    const auto global = lines_by_file(report("-N --compat 3.4 -F sched_switch" + files).out);
    EXPECT_GT(global.at("basic.dat sched_switch"), 0u);
    EXPECT_GT(global.at("full.dat sched_switch"), 0u);
    EXPECT_EQ(global.size(), 2u);  // nothing else, in either file

    const auto own = lines_by_file(
        report("-N --compat 3.4 -i traces/basic.dat -F sched_switch -i traces/full.dat -F sys_exit_write")
            .out);
    EXPECT_GT(own.at("basic.dat sched_switch"), 0u);
    EXPECT_GT(own.at("full.dat sys_exit_write"), 0u);
    EXPECT_EQ(own.size(), 2u);

    // Only the first file's: full.dat prints everything.
    const auto first_only =
        lines_by_file(report("-N --compat 3.4 -i traces/basic.dat -F sched_switch -i traces/full.dat").out);
    EXPECT_GT(first_only.at("full.dat other"), 1000u);
    EXPECT_EQ(first_only.count("basic.dat other"), 0u);

    // The shared list: sys_exit_write, given after the first -i, reaches full.dat too.
    const auto shared = lines_by_file(
        report("-N --compat 3.4 -F sched_switch -i traces/basic.dat -F sys_exit_write -i traces/full.dat")
            .out);
    EXPECT_GT(shared.at("full.dat sys_exit_write"), 0u);
    EXPECT_GT(shared.at("full.dat sched_switch"), 0u);
    EXPECT_EQ(shared.count("full.dat other"), 0u);

    // Files after the options: every -F is global.
    EXPECT_EQ(lines_by_file(report("-N --compat 3.4 -F sched_switch traces/basic.dat traces/full.dat").out),
              global);
}

// Several files after the options are read as several -i (trace-cmd 3.3 and later).
TEST(ReportCompat34, SeveralPositionalFilesAreMerged) {
    CmdResult a = report("-N --compat 3.4 traces/basic.dat traces/dropped.dat");
    CmdResult b = report("-N --compat 3.4 -i traces/basic.dat -i traces/dropped.dat");
    EXPECT_EQ(a.rc, 0);
    EXPECT_EQ(a.out, b.out);
    EXPECT_NE(a.out.find("dropped.dat: "), std::string::npos);
}

// trace-cmd 3.1.6 reads the first file after the options and ignores the others; a file after the
// options and one given with -i are a usage error (exit 255).
TEST(ReportQuirks, TraceCmd31ReadsOnePositionalFile) {
    CmdResult a = report("-N --compat 3.1 traces/basic.dat traces/dropped.dat");
    CmdResult one = report("-N --compat 3.1 traces/basic.dat");
    EXPECT_EQ(a.rc, 0);
    EXPECT_EQ(a.out, one.out);
    EXPECT_EQ(a.out.find("dropped.dat"), std::string::npos);
    CmdResult both = report("-N --compat 3.1 -i traces/basic.dat traces/dropped.dat");
    EXPECT_EQ(both.rc, 255);
    EXPECT_TRUE(both.out.empty());
    EXPECT_NE(both.err.find("traces/basic.dat"), std::string::npos) << both.err;
}

TEST(ReportFormats, JsonIsOneTypedObjectPerEvent) {
    CmdResult text = report("-N traces/dropped.dat");
    CmdResult r = report("-N --format json traces/dropped.dat");
    ASSERT_EQ(r.rc, 0) << r.err;
    std::stringstream ss(r.out);
    std::string line;
    size_t n = 0, missed = 0;
    bool saw_string_field = false;
    while (std::getline(ss, line)) {
        nlohmann::json j = nlohmann::json::parse(line);  // throws (fails the test) on bad JSON
        ++n;
        ASSERT_TRUE(j["ts"].is_number_unsigned());
        ASSERT_TRUE(j["cpu"].is_number_integer());
        ASSERT_TRUE(j["comm"].is_string());
        ASSERT_TRUE(j["fields"].is_object());
        ASSERT_TRUE(j["fields"]["common_pid"].is_number_integer());
        EXPECT_EQ(j["fields"]["common_pid"].get<int64_t>(), j["pid"].get<int64_t>());
        if (j["event"] == "sched_switch") {
            EXPECT_TRUE(j["fields"]["prev_comm"].is_string());
            saw_string_field = true;
        }
        if (j.contains("missed_before")) ++missed;
    }
    EXPECT_EQ(n, event_lines(text.out));
    EXPECT_TRUE(saw_string_field);
    EXPECT_GT(missed, 0u);  // dropped.dat has lost events mid-trace
}

TEST(ReportFormats, JsonEscapesStrings) {
    CmdResult r = report("-N --format json -F print traces/full.dat");
    ASSERT_EQ(r.rc, 0) << r.err;
    std::stringstream ss(r.out);
    std::string line;
    size_t n = 0;
    while (std::getline(ss, line)) {
        nlohmann::json j = nlohmann::json::parse(line);
        EXPECT_EQ(j["system"], "ftrace");
        ++n;
    }
    EXPECT_GT(n, 0u);
}

TEST(ReportFormats, CsvHasAHeaderAndOneRowPerEvent) {
    CmdResult text = report("-N traces/basic.dat");
    CmdResult r = report("-N --format csv traces/basic.dat");
    ASSERT_EQ(r.rc, 0) << r.err;
    std::stringstream ss(r.out);
    std::string line;
    ASSERT_TRUE(std::getline(ss, line));
    EXPECT_EQ(line, "source,ts,cpu,pid,comm,system,event,missed_before,info");
    size_t rows = 0;
    while (std::getline(ss, line)) {
        ++rows;
        EXPECT_EQ(line.rfind("traces/basic.dat,", 0), 0u) << line;
    }
    EXPECT_EQ(rows, event_lines(text.out));
}

}  // namespace
