// `ringscope report` end to end, through the built binary:
//  - the committed trace-cmd oracles of the cases that involve no plugin (-N, listings, errors);
//  - when trace-cmd is installed, every case of cases.tsv with -N against a live trace-cmd run;
//  - errors (one line naming the file and offset), exit codes, pinned trace-cmd quirks;
//  - --format json / csv.
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

#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "tests/support/file_text.hpp"

namespace {

const std::string kBin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
const std::string kData = RINGSCOPE_TEST_DATA_DIR;

struct CmdResult {
    int rc = -1;
    std::string out, err;
};

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs a shell command in tests/data; stdout and stderr captured.
CmdResult run_shell(const std::string& cmd) {
    char err_tmpl[] = "/tmp/ringscope-report-test.XXXXXX";
    int fd = mkstemp(err_tmpl);
    close(fd);
    CmdResult r;
    FILE* p = popen(("cd " + shell_quote(kData) + " && " + cmd + " 2>" + err_tmpl).c_str(), "r");
    if (!p) return r;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    int status = pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.err = ringscope::test::read_file(err_tmpl);
    unlink(err_tmpl);
    return r;
}

CmdResult report(const std::string& args) {
    return run_shell(shell_quote(kBin) + " report " + args);
}

struct Case {
    std::string name, args, expected;
    int rc;
};

std::vector<Case> cases() {
    std::vector<Case> out;
    std::ifstream f(kData + "/traces/cases.tsv");
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> cols;
        std::stringstream ss(line);
        std::string c;
        while (std::getline(ss, c, '\t')) cols.push_back(c);
        if (cols.size() < 4) continue;
        out.push_back({cols[0], cols[1], cols[2], std::atoi(cols[3].c_str())});
    }
    return out;
}

std::string expected_output(const Case& c) {
    if (c.expected.size() > 3 && c.expected.compare(c.expected.size() - 3, 3, ".xz") == 0)
        return run_shell("xzcat " + shell_quote(c.expected)).out;
    return ringscope::test::read_file(kData + "/" + c.expected);
}

size_t identical_lines(const std::string& a, const std::string& b) {
    std::stringstream sa(a), sb(b);
    std::string la, lb;
    size_t same = 0;
    while (std::getline(sa, la) && std::getline(sb, lb)) same += la == lb;
    return same;
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

size_t event_lines(const std::string& text) {
    size_t n = 0;
    std::stringstream ss(text);
    std::string l;
    while (std::getline(ss, l)) n += l.rfind("cpus=", 0) != 0 && l.rfind("CPU:", 0) != 0;
    return n;
}

// SOURCE (under tests/data) copied to PATH uncompressed, so that its pages can be patched in
// place; the copy, opened (an error when either step failed).
ringscope::Expected<ringscope::io::TraceDatReader> flat_copy(const std::string& source,
                                                             const std::string& path) {
    using namespace ringscope;
    auto reader = io::TraceDatReader::open(kData + "/" + source);
    if (!reader) return std::move(reader).error();
    io::WriterConfig cfg;
    cfg.compression = io::Compression::none;
    if (Status st = io::write_trace_dat_copy(*reader, path, cfg); !st) return std::move(st).error();
    return io::TraceDatReader::open(path);
}

// -j N by time slices (engine/time_slicer.hpp): RINGSCOPE_SLICE_BYTES=1 cuts at every page, so
// even the small committed traces make many slices; RINGSCOPE_SLICE_STATS=1 says on stderr how
// many of them printed (the rest went the serial way).
CmdResult report_env(const std::string& env, const std::string& args) {
    return run_shell(env + " " + shell_quote(kBin) + " report " + args);
}

// "W of K slices" from RINGSCOPE_SLICE_STATS; {0, 0} when the line is missing.
std::pair<size_t, size_t> slice_stats(const std::string& err) {
    std::smatch m;
    if (!std::regex_search(err, m, std::regex("([0-9]+) of ([0-9]+) slices"))) return {0, 0};
    return {std::stoul(m[1]), std::stoul(m[2])};
}

std::vector<std::string> committed_traces() {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(kData))
        if (e.path().extension() == ".dat") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

// The same rc, stdout and stderr as another run (WHAT names the run in failures).
void expect_same(const CmdResult& want, const CmdResult& got, const std::string& what) {
    EXPECT_EQ(want.rc, got.rc) << what;
    EXPECT_TRUE(want.out == got.out) << what << ": " << identical_lines(want.out, got.out)
                                     << " identical lines";
    EXPECT_EQ(want.err, got.err) << what;
}

// -j: the lines are formatted in worker threads, by time slices where no printing has side effects
// (RINGSCOPE_SLICE_BYTES=1: a slice per page, so that small traces make many), else by batches
// (plugin-printed types and -r/-R in order by the main thread). The output must not depend on the
// thread count: every case, plugins loaded or not, filters, -t/-l/-I/-S, --cpu, instances,
// several files. Under the sanitizers (10x slower: 650 s, CI's longest test) only -j 8 with a
// slice per page, the run with the most threads and hand-offs; the -Werror build runs all four.
TEST(ReportParallel, EveryCaseSameOutputWithOneTwoThreeOrEightThreads) {
    auto all = cases();
    if (all.empty()) GTEST_SKIP() << "no cases.tsv";
#if defined(__SANITIZE_ADDRESS__)
    constexpr bool kAllThreadCounts = false;
#else
    constexpr bool kAllThreadCounts = true;
#endif
    size_t checked = 0;
    for (const auto& c : all) {
        if (c.rc != 0) continue;
        CmdResult one = report("-j 1 " + c.args);
        if (kAllThreadCounts) {
            expect_same(one, report("-j 3 " + c.args), c.name + " -j 3");
            expect_same(one, report_env("RINGSCOPE_SLICE_BYTES=1", "-j 2 " + c.args),
                        c.name + " -j 2 (page slices)");
        }
        expect_same(one, report_env("RINGSCOPE_SLICE_BYTES=1", "-j 8 " + c.args),
                    c.name + " -j 8 (page slices)");
        ++checked;
    }
    EXPECT_GT(checked, 50u);
}

// Every committed trace under tests/data, without plugins: -j 2, 3 and 8 print what -j 1 prints,
// with the default slices and with one per page, and the slices print all of it.
TEST(ReportParallel, EveryCommittedTraceSameOutputInSlices) {
    const auto traces = committed_traces();
    ASSERT_GE(traces.size(), 15u);
    size_t many_slices = 0;
    for (const auto& t : traces) {
        CmdResult one = report("-N -j 1 " + shell_quote(t));
        for (const char* j : {"-j 2 ", "-j 3 ", "-j 8 "}) {
            for (const char* env : {"RINGSCOPE_SLICE_BYTES=", "RINGSCOPE_SLICE_BYTES=1"})
                expect_same(one, report_env(env, std::string("-N ") + j + shell_quote(t)), t + " " + j + env);
        }
        CmdResult stats =
            report_env("RINGSCOPE_SLICE_BYTES=1 RINGSCOPE_SLICE_STATS=1", "-N -j 2 " + shell_quote(t));
        const auto [written, count] = slice_stats(stats.err);
        EXPECT_GE(count, 1u) << t << ": " << stats.err;
        EXPECT_EQ(written, count) << t;
        many_slices += count >= 5;
    }
    EXPECT_GE(many_slices, 10u);
}

TEST(ReportParallel, TwoThreadsWithoutPluginsUseSlices) {
    CmdResult r = report_env("RINGSCOPE_SLICE_STATS=1", "-N -j 2 traces/full.dat");
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(slice_stats(r.err).second, 1u) << r.err;  // 128 KB of ring data: one default slice
    r = report_env("RINGSCOPE_SLICE_STATS=1 RINGSCOPE_SLICE_BYTES=1", "-N -j 2 traces/full.dat");
    EXPECT_GT(slice_stats(r.err).first, 100u) << r.err;
    // Plugin handlers and filters keep the other -j path: no slices.
    r = report_env("RINGSCOPE_SLICE_STATS=1 RINGSCOPE_SLICE_BYTES=1", "-j 2 traces/full.dat");
    EXPECT_EQ(slice_stats(r.err).second, 0u) << r.err;
    r = report_env("RINGSCOPE_SLICE_STATS=1 RINGSCOPE_SLICE_BYTES=1",
                   "-N -j 2 -F sched_switch traces/full.dat");
    EXPECT_EQ(slice_stats(r.err).second, 0u) << r.err;
}

// full.dat copied with the timestamps of one page of CPU 0 in the middle moved back by DELTA ns
// (the page header's base time), in COMPRESSION.
std::string backwards_copy(const std::string& name, uint64_t delta, ringscope::io::Compression compression) {
    using namespace ringscope;
    const std::string dir = std::filesystem::temp_directory_path() / "ringscope-report-slices";
    std::filesystem::create_directories(dir);
    const std::string flat = dir + "/" + name + "-none.dat";
    auto copy = flat_copy("traces/full.dat", flat);
    EXPECT_TRUE(copy);
    const auto cpu0 = copy->buffers()[0].cpus[0];
    const uint32_t page = copy->buffers()[0].page_size;
    const uint64_t at = cpu0.offset + (cpu0.size / page / 2) * page;
    {
        std::fstream f(flat, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(static_cast<std::streamoff>(at));
        uint64_t ts = 0;
        f.read(reinterpret_cast<char*>(&ts), 8);
        ts -= delta;
        f.seekp(static_cast<std::streamoff>(at));
        f.write(reinterpret_cast<const char*>(&ts), 8);
    }
    if (compression == io::Compression::none) return flat;
    const std::string packed = dir + "/" + name + "-zstd.dat";
    auto patched = io::TraceDatReader::open(flat);
    EXPECT_TRUE(patched);
    io::WriterConfig cfg;
    cfg.compression = compression;
    EXPECT_TRUE(io::write_trace_dat_copy(*patched, packed, cfg));
    return packed;
}

// A CPU whose timestamps go back across slices: the slices before the first that fails its checks
// print, the serial merge prints the rest, and the whole is what one thread prints.
TEST(ReportParallel, ACpuGoingBackInTimeFallsBackToTheSerialMergeWithTheSameOutput) {
    for (auto compression : {ringscope::io::Compression::none, ringscope::io::Compression::zstd}) {
        // Back by 20 ms: far past several slices of one page.
        const std::string path = backwards_copy("back", 20'000'000, compression);
        CmdResult one = report("-N -j 1 " + path);
        ASSERT_EQ(one.rc, 0) << one.err;
        for (const char* j : {"-j 2 ", "-j 3 ", "-j 8 "})
            expect_same(one, report_env("RINGSCOPE_SLICE_BYTES=1", std::string("-N ") + j + path), j);
        CmdResult stats = report_env("RINGSCOPE_SLICE_BYTES=1 RINGSCOPE_SLICE_STATS=1", "-N -j 2 " + path);
        const auto [written, count] = slice_stats(stats.err);
        EXPECT_GT(written, 10u) << stats.err;  // the slices before the page going back
        EXPECT_LT(written, count) << stats.err;
    }
}

// A zstd chunk of CPU 0 in the middle that does not decompress: the same lines, the same one-line
// error and exit code as one thread (the slices before it print, the serial merge the rest).
TEST(ReportParallel, ACorruptChunkInTheMiddleGivesTheSameLinesErrorAndExit) {
    using namespace ringscope;
    const std::string dir = std::filesystem::temp_directory_path() / "ringscope-report-slices";
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/corrupt-chunk.dat";
    std::filesystem::copy_file(kData + "/traces/full.dat", path,
                               std::filesystem::copy_options::overwrite_existing);
    auto reader = io::TraceDatReader::open(path);
    ASSERT_TRUE(reader);
    ASSERT_TRUE(reader->buffers()[0].compressed);
    const auto cpu0 = reader->buffers()[0].cpus[0];
    // The chunk list: a 4-byte count, then per chunk its compressed and plain sizes and its bytes.
    std::string bytes = test::read_file(path);
    auto u32 = [&](uint64_t at) {
        uint32_t v;
        std::memcpy(&v, bytes.data() + at, 4);
        return v;
    };
    const uint32_t chunks = u32(cpu0.offset);
    ASSERT_GE(chunks, 4u);
    uint64_t p = cpu0.offset + 4;
    for (uint32_t i = 0; i < chunks / 2; ++i) p += 8 + u32(p);
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(p + 8));  // the zstd frame's magic
        f.write("XXXX", 4);
    }
    CmdResult one = report("-N -j 1 " + path);
    EXPECT_EQ(one.rc, 1);
    EXPECT_EQ(std::count(one.err.begin(), one.err.end(), '\n'), 1) << one.err;
    EXPECT_NE(one.err.find("does not decompress"), std::string::npos) << one.err;
    EXPECT_GT(event_lines(one.out), 1000u);
    for (const char* j : {"-j 2 ", "-j 3 ", "-j 8 "}) {
        for (const char* env : {"RINGSCOPE_SLICE_BYTES=", "RINGSCOPE_SLICE_BYTES=1"})
            expect_same(one, report_env(env, std::string("-N ") + j + path), std::string(j) + env);
    }
    CmdResult stats = report_env("RINGSCOPE_SLICE_BYTES=1 RINGSCOPE_SLICE_STATS=1", "-N -j 2 " + path);
    const auto [written, count] = slice_stats(stats.err);
    EXPECT_GT(written, 10u) << stats.err;
    EXPECT_LT(written, count) << stats.err;
}

TEST(ReportParallel, BadThreadCountIsAUsageError) {
    for (const char* bad : {"-j 0", "-j x", "--jobs=-2", "-j"}) {
        CmdResult r = report(std::string(bad) + " traces/basic.dat");
        EXPECT_EQ(r.rc, 255) << bad;
        EXPECT_TRUE(r.out.empty()) << bad;
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
