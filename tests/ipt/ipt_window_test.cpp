// `ipt summary` reads its file in bounded windows cut at PSBs (psb_windows.hpp): the sums are
// those of the whole stream in memory, for every window size and thread count, on generated streams
// (clean, damaged, PSB floods, packets across PSBs, no PSB), the committed streams and libipt's
// suite; the window stays at its size on a large stream, and the command's peak RSS does not grow
// with the stream (a 4x larger stream: less than 4 MiB more). The other commands map their file
// (TraceBytes::map) and give back the pages behind them (PagesBehind), with -j and in `report`
// too: the mapping reads as the file, a file cut short (before a step, under a -j worker, while a
// command runs) is a one-line error and exit status 1, never SIGBUS (MappedGuard), and their peak
// RSS does not grow with the stream either.
#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "flow_program.hpp"
#include "ipt/mapped_guard.hpp"
#include "ipt/packet_summary.hpp"
#include "ipt/pages_behind.hpp"
#include "ipt/ptdump.hpp"
#include "ipt/trace_file.hpp"
#include "ipt_stream_generator.hpp"
#include "ipt_test_bytes.hpp"

namespace fs = std::filesystem;
namespace ri = ringscope::ipt;
namespace rb = ringscope::ipt::bench;
using ri::testing::GeneratorOptions;

namespace {

using ipt_test::write_temp;

struct Case {
    std::string name;
    std::vector<uint8_t> bytes;
};

std::vector<uint8_t> read_all(const fs::path& p) {
    auto bytes = ri::TraceBytes::load(p.string());
    if (!bytes) return {};
    return std::vector<uint8_t>(bytes->begin(), bytes->end());
}

void put_psb(std::vector<uint8_t>& out, int psbs = 1) {
    for (int i = 0; i < 8 * psbs; ++i) out.insert(out.end(), {0x02, 0x82});
}

std::vector<Case> cases() {
    std::vector<Case> all;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        GeneratorOptions o;
        o.segments = 60;
        o.body_packets = 40;
        all.push_back({"seed " + std::to_string(seed), ri::testing::generate_stream(seed, o)});
        o.corruptions = 30;
        o.garbage_before = o.truncate_last = true;
        all.push_back({"damaged " + std::to_string(seed), ri::testing::generate_stream(seed, o)});
        o.close_psbs = true;
        all.push_back({"close psbs " + std::to_string(seed), ri::testing::generate_stream(seed, o)});
        all.push_back({"random " + std::to_string(seed),
                       ri::testing::generate_stream(seed, ri::testing::random_options(seed))});
    }
    GeneratorOptions none;
    none.no_psb = true;
    none.segments = 40;
    all.push_back({"no psb", ri::testing::generate_stream(7, none)});
    // PSB floods longer than a small window, and an MTC whose payload is a PSB's first byte
    // (decoding runs past that cut).
    std::vector<uint8_t> flood;
    for (int round = 0; round < 40; ++round) {
        put_psb(flood, round % 7 == 3 ? 40 : 1);
        flood.insert(flood.end(), {0x02, 0x23, 0x06, 0x00, 0x0a});  // PSBEND, TNT-8, PAD, TNT-8
        if (round % 3 == 1) flood.push_back(0x59);
        for (int i = 0; i < round * 7; ++i) flood.push_back(0x00);
    }
    all.push_back({"floods", flood});
    for (const char* name : {"clean", "messy", "close_psbs"})
        all.push_back({name, read_all(fs::path(RINGSCOPE_SOURCE_DIR) / "tests/data/ipt" /
                                      (std::string(name) + ".pt"))});
    return all;
}

// Mostly TNT and compressed TIPs, 4000 packets a PSB segment: about 8.5 KiB a segment.
std::vector<uint8_t> realistic(uint64_t seed, size_t segments) {
    GeneratorOptions o;
    o.realistic = true;
    o.segments = segments;
    o.body_packets = 4000;
    return ri::testing::generate_stream(seed, o);
}

std::string whole(const std::vector<uint8_t>& raw) {
    ri::TraceBytes bytes = ri::TraceBytes::copy(raw.data(), raw.size());
    ri::Config c;
    c.begin = bytes.begin();
    c.end = bytes.end();
    ri::PacketSummary s;
    s.add_stream(c, 1);
    return s.save_state().dump();
}

std::string windowed(const std::string& path, unsigned threads, uint64_t window, size_t* peak = nullptr) {
    ri::PacketSummary s;
    if (ringscope::Status st = s.add_file(path, threads, window, peak); !st) return st.error().to_string();
    return s.save_state().dump();
}

TEST(IptWindow, SummaryEqualsWholeStream) {
    for (const Case& c : cases()) {
        ASSERT_FALSE(c.bytes.empty()) << c.name;
        std::string path = write_temp(c.bytes, "ipt_window");
        ASSERT_FALSE(path.empty());
        const std::string expected = whole(c.bytes);
        for (uint64_t window : {256, 320, 1000, 4096, 65536, 0})
            for (unsigned threads : {1u, 2u, 3u})
                ASSERT_EQ(windowed(path, threads, window), expected)
                    << c.name << ", window " << window << ", -j " << threads;
        std::remove(path.c_str());
    }
}

TEST(IptWindow, SummaryEqualsWholeStreamOnLibiptSuite) {
    fs::path dir = fs::path(RINGSCOPE_SHARED_DIR) / "conformance/ipt/libipt-suite";
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is not there";
    size_t streams = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() != ".pt") continue;
        std::vector<uint8_t> raw = read_all(e.path());
        const std::string expected = whole(raw);
        for (uint64_t window : {256, 1000, 0})
            for (unsigned threads : {1u, 3u})
                ASSERT_EQ(windowed(e.path().string(), threads, window), expected)
                    << e.path() << ", window " << window << ", -j " << threads;
        ++streams;
    }
    EXPECT_GT(streams, 100u);
}

// A 16 MiB stream goes through a 64 KiB window that never grows; a long stretch without PSB makes it
// grow.
TEST(IptWindow, WindowStaysBounded) {
    std::vector<uint8_t> raw = realistic(9, 2000);
    ASSERT_GT(raw.size(), 16u << 20);
    std::string path = write_temp(raw, "ipt_window_big");
    ASSERT_FALSE(path.empty());
    size_t peak = 0;
    EXPECT_EQ(windowed(path, 1, 64 << 10, &peak), whole(raw));
    EXPECT_EQ(peak, 64u << 10);
    EXPECT_EQ(windowed(path, 2, 64 << 10, &peak), whole(raw));
    EXPECT_EQ(peak, 64u << 10);
    std::remove(path.c_str());

    // Looking for the first PSB slides the window along a stream that has none.
    GeneratorOptions none;
    none.no_psb = true;
    none.segments = 100;
    raw = ri::testing::generate_stream(3, none);
    path = write_temp(raw, "ipt_window_none");
    EXPECT_EQ(windowed(path, 1, 256, &peak), whole(raw));
    EXPECT_EQ(peak, 256u);
    std::remove(path.c_str());

    // 20000 bytes of packets between two PSBs: the window grows to hold them.
    raw.clear();
    put_psb(raw);
    raw.insert(raw.end(), {0x02, 0x23});
    raw.insert(raw.end(), 20000, 0x06);
    put_psb(raw);
    raw.insert(raw.end(), {0x02, 0x23, 0x06});
    path = write_temp(raw, "ipt_window_gap");
    EXPECT_EQ(windowed(path, 1, 256, &peak), whole(raw));
    EXPECT_GE(peak, 20000u);
    std::remove(path.c_str());
}

// Peak RSS (KiB) of `ringscope ARGS...`, run in a child of its own. Under AddressSanitizer freed
// blocks wait in a quarantine (256 MB) before reuse, which would count every window ever read: the
// child runs without one, so what is measured is still what the code keeps.
long child_rss(const std::vector<std::string>& args) {
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    pid_t pid = fork();
    if (pid == 0) {
        const char* asan = std::getenv("ASAN_OPTIONS");
        const std::string opts = std::string(asan ? asan : "") + (asan && *asan ? ":" : "") +
                                 "quarantine_size_mb=0:thread_local_quarantine_size_kb=0";
        ::setenv("ASAN_OPTIONS", opts.c_str(), 1);
        std::vector<char*> argv{const_cast<char*>(bin.c_str())};
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        if (!std::freopen("/dev/null", "w", stdout)) _exit(127);
        execv(bin.c_str(), argv.data());
        _exit(127);
    }
    int status = 0;
    struct rusage usage {};
    if (pid < 0 || wait4(pid, &status, 0, &usage) != pid) return -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -2;
    return usage.ru_maxrss;
}

TEST(IptWindow, SummaryPeakRssIsFlat) {
    std::vector<uint8_t> one = realistic(5, 800);
    ASSERT_GT(one.size(), 6u << 20);
    std::vector<uint8_t> four;
    for (int i = 0; i < 4; ++i) four.insert(four.end(), one.begin(), one.end());
    std::string p1 = write_temp(one, "ipt_rss_1"), p4 = write_temp(four, "ipt_rss_4");
    ASSERT_FALSE(p1.empty());
    ASSERT_FALSE(p4.empty());
    for (const char* jobs : {"1", "2"}) {
        long a = child_rss({"ipt", "summary", "-j", jobs, p1});
        long b = child_rss({"ipt", "summary", "-j", jobs, p4});
        ASSERT_GT(a, 0) << jobs;
        ASSERT_GT(b, 0) << jobs;
        // The old whole-file read: b - a was the 3 x 6 MiB more of the file.
        EXPECT_LT(b - a, 4 << 10) << "-j " << jobs << ": " << a << " KiB, 4x: " << b << " KiB";
    }
    std::remove(p1.c_str());
    std::remove(p4.c_str());
}

// ipt dump -j keeps the text of the parts in flight only: each part's text is freed once written
// (it was kept, as an empty string's buffer, to the end: 216 MB more for a 24 MB stream). The
// stream itself is still read whole: the 4x stream may cost its 3x more bytes, not its text.
TEST(IptWindow, DumpJobsFreeTheirText) {
    std::vector<uint8_t> one = realistic(6, 240);
    ASSERT_GT(one.size(), 2u << 20);
    std::vector<uint8_t> four;
    for (int i = 0; i < 4; ++i) four.insert(four.end(), one.begin(), one.end());
    std::string p1 = write_temp(one, "ipt_dump_rss_1"), p4 = write_temp(four, "ipt_dump_rss_4");
    ASSERT_FALSE(p1.empty());
    ASSERT_FALSE(p4.empty());
    long a = child_rss({"ipt", "dump", "-j", "2", p1});
    long b = child_rss({"ipt", "dump", "-j", "2", p4});
    ASSERT_GT(a, 0);
    ASSERT_GT(b, 0);
    EXPECT_LT(b - a, static_cast<long>(3 * one.size() / 1024) + (16 << 10))
        << a << " KiB, 4x: " << b << " KiB";
    std::remove(p1.c_str());
    std::remove(p4.c_str());
}

std::vector<uint8_t> bytes_of(const ri::TraceBytes& t) {
    return std::vector<uint8_t>(t.begin(), t.end());
}

// map() gives the bytes load() reads: whole, in ranges, from a pipe, empty; an offset that is no
// multiple of 64 is read (the PSB search's alignment), and the errors are load's.
TEST(IptWindow, MappedTraceReadsAsTheFile) {
    std::vector<uint8_t> raw = realistic(3, 40);
    ASSERT_GT(raw.size(), 300u << 10);
    const std::string path = write_temp(raw, "ipt_mapped");
    ASSERT_FALSE(path.empty());
    struct Range {
        uint64_t offset, size;
        bool mapped;
    };
    for (Range r : std::vector<Range>{{0, 0, true},
                                      {64, 0, true},
                                      {4096 * 3 + 128, 1000, true},
                                      {13, 0, false},
                                      {(raw.size() - 100) / 64 * 64, 0, true}}) {
        auto loaded = ri::TraceBytes::load(path, r.offset, r.size);
        auto mapped = ri::TraceBytes::map(path, r.offset, r.size);
        ASSERT_TRUE(loaded && mapped) << r.offset;
        EXPECT_EQ(mapped->mapped(), r.mapped) << r.offset;
        EXPECT_EQ(bytes_of(*mapped), bytes_of(*loaded)) << r.offset;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(mapped->begin()) % 64, 0u) << r.offset;
        if (r.mapped) {
            EXPECT_EQ(mapped->file_offset(), r.offset);
        }
    }
    // Pages given back read again from the file.
    {
        auto mapped = ri::TraceBytes::map(path);
        ASSERT_TRUE(mapped);
        ri::PagesBehind forward(*mapped);
        for (uint64_t at = 0; at <= raw.size(); at += 4096) EXPECT_TRUE(forward.at(at));
        EXPECT_EQ(bytes_of(*mapped), raw);
        ri::PagesBehind backward(*mapped, ri::PagesBehind::Direction::backward);
        for (uint64_t at = raw.size(); at >= 4096; at -= 4096) EXPECT_TRUE(backward.at(at));
        EXPECT_EQ(bytes_of(*mapped), raw);
    }
    // A pipe is read; an empty file is an empty trace; errors name the file.
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::vector<uint8_t> head(raw.begin(), raw.begin() + 30000);
    ASSERT_EQ(write(fds[1], head.data(), head.size()), static_cast<ssize_t>(head.size()));
    close(fds[1]);
    auto piped = ri::TraceBytes::map("/proc/self/fd/" + std::to_string(fds[0]));
    close(fds[0]);
    ASSERT_TRUE(piped) << piped.error().to_string();
    EXPECT_FALSE(piped->mapped());
    EXPECT_EQ(bytes_of(*piped), head);
    const std::string empty = write_temp({}, "ipt_mapped_empty");
    auto none = ri::TraceBytes::map(empty);
    ASSERT_TRUE(none);
    EXPECT_EQ(none->size(), 0u);
    EXPECT_NE(none->begin(), nullptr);
    auto past = ri::TraceBytes::map(path, raw.size() + 64);
    ASSERT_FALSE(past);
    EXPECT_NE(past.error().to_string().find(path), std::string::npos) << past.error().to_string();
    EXPECT_FALSE(ri::TraceBytes::map(path, 0, raw.size() + 1));
    EXPECT_FALSE(ri::TraceBytes::map("/nonexistent/x.pt"));
    std::remove(empty.c_str());
    std::remove(path.c_str());
}

// A file cut short while mapped: the dump stops at its next step with an error that names the
// file and the offset, instead of SIGBUS on the bytes past the new end.
TEST(IptWindow, MappedTraceCutShortIsAnError) {
    std::vector<uint8_t> raw = realistic(4, 500);
    ASSERT_GT(raw.size(), 4u << 20);
    const std::string path = write_temp(raw, "ipt_mapped_cut");
    ASSERT_FALSE(path.empty());
    auto mapped = ri::TraceBytes::map(path);
    ASSERT_TRUE(mapped && mapped->mapped());
    ASSERT_EQ(truncate(path.c_str(), 1 << 20), 0);
    ri::Config config;
    config.begin = mapped->begin();
    config.end = mapped->end();
    ri::PagesBehind pages(*mapped);
    std::FILE* out = std::fopen("/dev/null", "w");
    ASSERT_NE(out, nullptr);
    ri::ptdump(config, ri::PtdumpOptions{}, out, 1, 0, &pages);
    std::fclose(out);
    ASSERT_TRUE(pages.failed());
    const std::string e = pages.error().to_string();
    EXPECT_NE(e.find(path), std::string::npos) << e;
    EXPECT_NE(e.find("shrank"), std::string::npos) << e;
    std::remove(path.c_str());
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr) << path;
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    std::fclose(f);
}

// The stderr of a child that ran body, and its exit status (-1: killed by a signal, e.g. SIGBUS).
struct ChildEnd {
    int status = -2;
    std::string err;
};

std::string read_text(const std::string& path) {
    std::string text;
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        char buf[4096];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
        std::fclose(f);
    }
    return text;
}

ChildEnd wait_child(pid_t pid, const std::string& err_path) {
    ChildEnd end;
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return end;
    end.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    end.err = read_text(err_path);
    std::remove(err_path.c_str());
    return end;
}

// The one-line error of a file cut short: the file, the offset (returned), exit status 1.
uint64_t expect_cut_error(const ChildEnd& end, const std::string& path, const std::string& what) {
    EXPECT_EQ(end.status, 1) << what << ": " << end.err;
    EXPECT_EQ(std::count(end.err.begin(), end.err.end(), '\n'), 1) << what << ": " << end.err;
    EXPECT_NE(end.err.find(path + ": offset "), std::string::npos) << what << ": " << end.err;
    const size_t at = end.err.find(": offset ");
    return at == std::string::npos ? 0 : std::strtoull(end.err.c_str() + at + 9, nullptr, 10);
}

// A file cut short where nothing checks its size (ptdump -j without PagesBehind: the PSB cut
// search, then the workers): MappedGuard turns the SIGBUS of the first touch past the new end into
// the error line and exit status 1 (it was a crash).
TEST(IptWindow, MappedTraceCutUnderAWorkerIsAnError) {
    std::vector<uint8_t> raw = realistic(4, 500);
    const std::string path = write_temp(raw, "ipt_guard_cut");
    ASSERT_FALSE(path.empty());
    const std::string err_path = path + ".err";
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        if (!std::freopen(err_path.c_str(), "w", stderr)) _exit(3);
        auto mapped = ri::TraceBytes::map(path);
        if (!mapped || !mapped->mapped() || truncate(path.c_str(), 1 << 20) != 0) _exit(4);
        ri::Config config;
        config.begin = mapped->begin();
        config.end = mapped->end();
        std::FILE* out = std::fopen("/dev/null", "w");
        ri::ptdump(config, ri::PtdumpOptions{}, out, 2, 64 << 10, nullptr);
        _exit(0);  // not reached: the bytes past 1 MiB are gone
    }
    const ChildEnd end = wait_child(pid, err_path);
    const uint64_t offset = expect_cut_error(end, path, "ptdump -j 2");
    EXPECT_GE(offset, 1u << 20) << end.err;
    EXPECT_LT(offset, raw.size()) << end.err;
    EXPECT_EQ(end.err, ri::MappedGuard::message(path, offset) + "\n");
    std::remove(path.c_str());
}

// Each command, its output going to a pipe nobody reads: it blocks there mid-decode, the file is
// cut to 64 KiB, then the output drained. It ends with the one-line error (from its step's size
// check or from MappedGuard) and exit status 1; -j and report met SIGBUS before.
TEST(IptWindow, TraceCutWhileCommandsDecodeIsAnError) {
    const std::vector<uint8_t> raw = realistic(12, 500);
    rb::FlowOptions o;
    o.seed = 12;
    o.functions = 60;
    o.pt_bytes = 1u << 20;
    const rb::FlowProgram program = rb::make_program(o);
    const std::vector<uint8_t> flow_pt = rb::trace_program(program, o).pt;
    const std::string code = ::testing::TempDir() + "ipt_cut_code_" + std::to_string(getpid()) + ".bin";
    write_file(code, program.code);
    const std::string raw_arg = code + ":0x400000";
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    const std::vector<std::vector<std::string>> commands = {{"ipt", "dump"},
                                                            {"ipt", "dump", "-j", "2"},
                                                            {"report"},
                                                            {"report", "-O", "ipt:raw=" + raw_arg},
                                                            {"ipt", "flow", "--raw", raw_arg, "-j", "2"},
                                                            {"ipt", "calls", "--raw", raw_arg}};
    for (const auto& command : commands) {
        std::string what;
        for (const auto& a : command) what += a + " ";
        const bool flow = command.back() == "2" && command[1] == "flow";
        const std::vector<uint8_t>& bytes =
            flow || command.back().starts_with("ipt:raw") || (command.size() > 1 && command[1] == "calls")
                ? flow_pt
                : raw;
        const std::string path = write_temp(bytes, "ipt_cut_cmd");
        ASSERT_FALSE(path.empty());
        const std::string err_path = path + ".err";
        int fds[2];
        ASSERT_EQ(pipe(fds), 0);
        std::fflush(nullptr);
        const pid_t pid = fork();
        if (pid == 0) {
            dup2(fds[1], STDOUT_FILENO);
            close(fds[0]);
            close(fds[1]);
            if (!std::freopen(err_path.c_str(), "w", stderr)) _exit(3);
            std::vector<char*> argv{const_cast<char*>(bin.c_str())};
            for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(const_cast<char*>(path.c_str()));
            argv.push_back(nullptr);
            execv(bin.c_str(), argv.data());
            _exit(127);
        }
        close(fds[1]);
        char buf[65536];
        ASSERT_GT(read(fds[0], buf, 1), 0) << what;  // decoding, the file mapped
        ASSERT_EQ(truncate(path.c_str(), 64 << 10), 0);
        while (read(fds[0], buf, sizeof buf) > 0) {
        }
        close(fds[0]);
        const ChildEnd end = wait_child(pid, err_path);
        const uint64_t offset = expect_cut_error(end, path, what);
        EXPECT_LT(offset, bytes.size()) << what << end.err;
        std::remove(path.c_str());
    }
    std::remove(code.c_str());
}

// The streams of CommandsPeakRssIsFlat, written to files: each stream once and 16 times longer.
struct RssFiles {
    std::string one, sixteen;
};

RssFiles write_rss_files(const std::vector<uint8_t>& one, const std::string& name) {
    std::vector<uint8_t> sixteen;
    for (int i = 0; i < 16; ++i) sixteen.insert(sixteen.end(), one.begin(), one.end());
    return {write_temp(one, name + "_1"), write_temp(sixteen, name + "_16")};
}

// Peak RSS of each command on a stream and on one 16 times larger: the whole-file read cost the
// larger one its 15 parts more (7.5 MiB); mapped, the pages in flight (up to 2 MiB of a large
// folio mapped whole at the start, then about 1 MiB) do not grow with the stream. A forked child's peak
// starts at the test's RSS: the streams are freed before the commands run.
TEST(IptWindow, CommandsPeakRssIsFlat) {
    const RssFiles packets = write_rss_files(realistic(8, 62), "ipt_cmd_rss");
    rb::FlowOptions o;
    o.seed = 8;
    o.functions = 60;
    o.pt_bytes = 512u << 10;
    const rb::FlowProgram program = rb::make_program(o);
    const std::string code = ::testing::TempDir() + "ipt_cmd_rss_" + std::to_string(getpid()) + ".bin";
    write_file(code, program.code);
    const RssFiles flow = write_rss_files(rb::trace_program(program, o).pt, "ipt_flow_rss");
    malloc_trim(0);
    ASSERT_GT(fs::file_size(packets.one), 512u << 10);
    ASSERT_GE(fs::file_size(flow.one), 512u << 10);
    ASSERT_FALSE(packets.sixteen.empty() || flow.sixteen.empty());
    const std::string raw = code + ":0x400000";
    // -j: the pages behind the part taken are given back; report maps the file itself.
    for (const char* command : {"dump", "dump -j", "sync", "flow", "flow -j", "calls", "profile", "report"}) {
        const std::string name = command;
        std::vector<std::string> args = {"ipt", name.substr(0, name.find(' '))};
        if (name == "report") args = {"report"};
        const bool packet_command = name.starts_with("dump") || name == "sync" || name == "report";
        if (!packet_command) args.insert(args.end(), {"--raw", raw});
        if (name.ends_with("-j")) args.insert(args.end(), {"-j", "2"});
        // Decoded all the same, printed not at all: half the test's time went to printing.
        if (name.starts_with("flow") || name.starts_with("dump")) args.push_back("--quiet");
        auto with = [&](const std::string& pt) {
            std::vector<std::string> a = args;
            a.push_back(pt);
            return a;
        };
        const RssFiles& f = packet_command ? packets : flow;
        const long a = child_rss(with(f.one)), b = child_rss(with(f.sixteen));
        ASSERT_GT(a, 0) << command;
        ASSERT_GT(b, 0) << command;
        // report and flow -j hold more of the file around their decoders once the file's cache is
        // in large folios (flow -j: its workers read the parts in flight ahead of the pages given
        // back): flat from 8 MiB on (report 20 MB at 8, 64 and 256 MiB; flow -j 16 MB at 8 and 64)
        // but 4-5 MB more than at 0.5 MiB. Before, the whole file: 11 and 40 MB more.
        const long slack = name == "report" || name == "flow -j" ? 6144 : 4608;
        EXPECT_LT(b - a, slack) << command << ": " << a << " KiB, 16x: " << b << " KiB";
    }
    for (const std::string& f : {packets.one, packets.sixteen, flow.one, flow.sixteen, code})
        std::remove(f.c_str());
}

}  // namespace
