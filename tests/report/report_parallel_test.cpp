// `ringscope report -j N` end to end: the same output, errors and exit codes whatever the thread
// count, by time slices or batches, on every case and committed trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "tests/report/report_cli_support.hpp"

namespace {

using namespace report_cli;

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

}  // namespace
