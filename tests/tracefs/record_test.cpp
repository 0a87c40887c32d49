// `ringscope record` / `extract`: trace-cmd reads the files the same way ringscope does; nothing is
// lost at a high marker rate with a big buffer; a tiny buffer's losses are shown and stored; SIGINT
// leaves a complete file and the state restored.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "framework/capture/clock_conversion.hpp"
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "tracefs_test_util.hpp"

using namespace ringscope;
using namespace rs_tracefs_test;

namespace {

const std::string kRs = RINGSCOPE_BIN;

// Numbers of the "n=K" marker lines of a report, in report order.
std::vector<long> report_markers(const std::string& text) {
    std::vector<long> out;
    size_t pos = 0;
    while ((pos = text.find("tracing_mark_write: n=", pos)) != std::string::npos) {
        pos += 22;
        out.push_back(std::strtol(text.c_str() + pos, nullptr, 10));
    }
    return out;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t pos = 0; (pos = text.find(what, pos)) != std::string::npos; pos += what.size()) ++n;
    return n;
}

// `record` into DIR/NAME with markers written to the instance by marker_writer.
int record_markers(const std::string& root, const std::string& dir, const std::string& inst,
                   const std::string& file, long n, const std::string& extra) {
    return sh(kRs + " record -B " + inst + " -e sched:sched_process_exit -o " + dir + "/" + file + " " +
              extra + " -- " MARKER_WRITER_BIN " " + root + "/instances/" + inst + "/trace_marker " +
              std::to_string(n) + " > " + dir + "/" + file + ".log 2>&1");
}

// `ringscope report -N FILE`; where trace-cmd is installed, it must print the same.
std::string report_checked_against_trace_cmd(const std::string& file) {
    EXPECT_EQ(sh(kRs + " report -N " + file + " > " + file + ".txt 2>/dev/null"), 0);
    const std::string text = read_file(file + ".txt");
    if (have_trace_cmd()) {
        EXPECT_EQ(sh("trace-cmd report -N " + file + " > " + file + ".tc 2>/dev/null"), 0);
        EXPECT_EQ(read_file(file + ".tc"), text) << "diff " << file << ".tc " << file << ".txt";
    }
    return text;
}

}  // namespace

TEST(Record, TraceCmdReadsWhatRingscopeReads) {
    REQUIRE_TRACEFS(root);
    if (!have_trace_cmd()) {
        GTEST_SKIP() << "trace-cmd is not installed";
    }
    TracefsLock lock;
    const std::string dir = scratch_dir("record_compat");
    for (const char* comp : {"none", "zstd", "zlib"}) {
        SCOPED_TRACE(comp);
        const std::string inst = unique_name("rec");
        const std::string f = dir + "/" + comp + ".dat";
        ASSERT_EQ(sh(kRs + " record -B " + inst + " -e sched -e irq --compression " + comp + " -o " + f +
                     " -- sh -c '" + MARKER_WRITER_BIN + " " + root + "/instances/" + inst +
                     "/trace_marker 500; sleep 0.2' > " + f + ".log 2>&1"),
                  0)
            << read_file(f + ".log");
        EXPECT_FALSE(instance_exists(root, inst));
        auto rd = io::TraceDatReader::open(f);
        ASSERT_TRUE(rd) << rd.error().to_string();
        EXPECT_EQ(rd->file_version(), 7u);
        EXPECT_EQ(io::compression_name(rd->compression()), std::string(comp));
        EXPECT_FALSE(rd->options().cpustats.empty());
        EXPECT_FALSE(rd->metadata().kallsyms.empty());
        EXPECT_TRUE(rd->options().uname.has_value());
        EXPECT_TRUE(rd->options().trace_clock.has_value());
        std::string cmp = f;
        if (std::string(comp) == "zlib") {
            // Debian's trace-cmd has no zlib: compare against an uncompressed copy of the same file.
            cmp = dir + "/zlib-as-none.dat";
            io::WriterConfig cfg;
            cfg.compression = io::Compression::none;
            ASSERT_TRUE(io::write_trace_dat_copy(*rd, cmp, cfg));
        }
        // With plugins only where the sched plugin is built beside the CLI (it is another target).
        const bool plugins = ::access(RINGSCOPE_BINARY_DIR "/plugins/sched.so", F_OK) == 0;
        if (!plugins) std::printf("note: no sched plugin built: comparing with -N only\n");
        for (const char* flags : {"-N", ""}) {
            SCOPED_TRACE(flags);
            if (!*flags && !plugins) continue;
            ASSERT_EQ(
                sh("trace-cmd report " + std::string(flags) + " " + cmp + " > " + f + ".tc 2>/dev/null"), 0);
            ASSERT_EQ(sh(kRs + " report " + flags + " " + f + " > " + f + ".rs 2>/dev/null"), 0);
            const std::string tc = read_file(f + ".tc"), rs = read_file(f + ".rs");
            EXPECT_EQ(report_markers(rs).size(), 500u);
            if (*flags) {
                EXPECT_EQ(tc, rs) << "diff " << f << ".tc " << f << ".rs";
            } else {
                // With plugins, sched_switch states differ where libtraceevent's table is stale (see
                // notes/tracing-on-this-machine.md): compare the other lines.
                auto strip = [](const std::string& s) {
                    std::string out;
                    size_t pos = 0;
                    while (pos < s.size()) {
                        size_t nl = s.find('\n', pos);
                        if (nl == std::string::npos) nl = s.size();
                        const std::string line = s.substr(pos, nl - pos);
                        if (line.find("sched_switch:") == std::string::npos) out += line + "\n";
                        pos = nl + 1;
                    }
                    return out;
                };
                EXPECT_EQ(strip(tc), strip(rs)) << "diff " << f << ".tc " << f << ".rs";
            }
        }
    }
}

TEST(Record, NothingLostAtHighRate) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("record_nothing_lost");
    const std::string inst = unique_name("lossless");
    constexpr long kN = 200000;
    ASSERT_EQ(record_markers(root, dir, inst, "a.dat", kN, "-b 4096 --compression none"), 0)
        << read_file(dir + "/a.dat.log");
    const std::string log = read_file(dir + "/a.dat.log");
    EXPECT_EQ(log.find("LOST"), std::string::npos) << log;
    ASSERT_EQ(sh(kRs + " report -N " + dir + "/a.dat > " + dir + "/a.txt 2> " + dir + "/a.err"), 0)
        << read_file(dir + "/a.err");
    const std::string text = read_file(dir + "/a.txt");
    const auto got = report_markers(text);
    ASSERT_EQ(got.size(), static_cast<size_t>(kN));
    for (long i = 0; i < kN; ++i)
        ASSERT_EQ(got[static_cast<size_t>(i)], i) << "marker " << i << " out of order";
    EXPECT_EQ(count(text, "EVENTS DROPPED"), 0u);

    // The kernel's per-CPU stats stored in the file agree: nothing overrun, nothing left, and as
    // many events read on each CPU as the file holds for it.
    auto rd = io::TraceDatReader::open(dir + "/a.dat");
    ASSERT_TRUE(rd);
    const auto& stats = rd->options().cpustats;
    ASSERT_FALSE(stats.empty());
    std::regex cpu_re("CPU: (\\d+)\n"),
        field_re("(entries|overrun|commit overrun|dropped events|read events): (\\d+)");
    uint64_t read_total = 0;
    for (const std::string& s : stats) {
        std::smatch m;
        ASSERT_TRUE(std::regex_search(s, m, cpu_re)) << s;
        const std::string cpu = m[1];
        uint64_t read_events = 0;
        for (auto it = std::sregex_iterator(s.begin(), s.end(), field_re); it != std::sregex_iterator();
             ++it) {
            const std::string k = (*it)[1];
            const uint64_t v = std::stoull((*it)[2]);
            if (k == "read events") {
                read_events = v;
            } else {
                EXPECT_EQ(v, 0u) << "CPU " << cpu << " " << k;
            }
        }
        // Events of this CPU in the report.
        const std::string tag = "[" + std::string(3 - std::min<size_t>(3, cpu.size()), '0') + cpu + "]";
        EXPECT_EQ(read_events, count(text, tag)) << "CPU " << cpu;
        read_total += read_events;
    }
    EXPECT_GE(read_total, static_cast<uint64_t>(kN));
}

TEST(Record, TinyBufferLossesAreShownAndStored) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("record_tiny");
    const std::string inst = unique_name("tiny");
    // Losses need a reader that falls behind: both on one CPU, the recorder at the lowest priority
    // and the writer at the highest, so that the writer fills the 8 KB buffer whatever the load.
    ASSERT_EQ(
        sh("taskset -c 0 nice -n 19 " + kRs + " record -B " + inst + " -b 8 -e sched:sched_process_exit -o " +
           dir + "/t.dat --compression none -- nice -n -39 " MARKER_WRITER_BIN " " + root + "/instances/" +
           inst + "/trace_marker 200000 > " + dir + "/t.log 2>&1"),
        0)
        << read_file(dir + "/t.log");
    const std::string log = read_file(dir + "/t.log");
    EXPECT_NE(log.find("LOST"), std::string::npos) << log;
    EXPECT_NE(log.find("WARNING:"), std::string::npos) << log;
    auto rd = io::TraceDatReader::open(dir + "/t.dat");
    ASSERT_TRUE(rd);
    uint64_t overrun = 0;
    std::regex re("overrun: (\\d+)");
    for (const auto& s : rd->options().cpustats) {
        std::smatch m;
        if (std::regex_search(s, m, re)) overrun += std::stoull(m[1]);
    }
    EXPECT_GT(overrun, 0u);
    const std::string text = report_checked_against_trace_cmd(dir + "/t.dat");
    EXPECT_GT(count(text, "EVENTS DROPPED]"), 0u);
    EXPECT_LT(report_markers(text).size(), 200000u);
    ASSERT_EQ(sh(kRs + " report --stat " + dir + "/t.dat > " + dir + "/t.stat 2>/dev/null"), 0);
    EXPECT_NE(read_file(dir + "/t.stat").find("overrun: "), std::string::npos);
}

TEST(Record, DateStoresTheWallClockOffset) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("record_date");
    const std::string inst = unique_name("date");
    const long before = static_cast<long>(::time(nullptr));
    ASSERT_EQ(record_markers(root, dir, inst, "d.dat", 20, "--date --compression none"), 0)
        << read_file(dir + "/d.dat.log");
    const long after = static_cast<long>(::time(nullptr));
    EXPECT_FALSE(instance_exists(root, inst));
    EXPECT_FALSE(instance_exists(root, "ringscope-date-" + std::to_string(::getpid())));
    auto rd = io::TraceDatReader::open(dir + "/d.dat");
    ASSERT_TRUE(rd) << rd.error().to_string();
    ASSERT_TRUE(rd->options().date.has_value());
    EXPECT_EQ(rd->options().date->rfind("0x", 0), 0u) << *rd->options().date;
    // With the offset applied the markers carry wall-clock seconds of this run.
    const std::string text = report_checked_against_trace_cmd(dir + "/d.dat");
    ASSERT_EQ(report_markers(text).size(), 20u);
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(text, m, std::regex(R"(\] +(\d+)\.\d{6}: print: +tracing_mark_write: n=0)")));
    const long secs = std::stol(m[1]);
    EXPECT_GE(secs, before - 2);
    EXPECT_LE(secs, after + 2);
}

TEST(Record, Tsc2nsecStoresTheConversionOrFailsCleanly) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("record_tsc");
    const std::string inst = unique_name("tsc");
    const auto conv = capture::read_tsc2nsec();
    const int rc = record_markers(root, dir, inst, "t.dat", 20, "--tsc2nsec --compression none");
    const std::string log = read_file(dir + "/t.dat.log");
    EXPECT_FALSE(instance_exists(root, inst));
    if (!conv) {
        // This machine: perf does not publish the TSC conversion, as trace-cmd --tsc2nsec also finds.
        EXPECT_NE(rc, 0);
        EXPECT_NE(log.find("TSC to ns conversion"), std::string::npos) << log;
        return;
    }
    ASSERT_EQ(rc, 0) << log;
    auto rd = io::TraceDatReader::open(dir + "/t.dat");
    ASSERT_TRUE(rd) << rd.error().to_string();
    ASSERT_TRUE(rd->options().tsc2nsec.has_value());
    EXPECT_EQ(rd->options().tsc2nsec->mult, conv->mult);
    EXPECT_EQ(rd->options().tsc2nsec->shift, conv->shift);
    EXPECT_EQ(rd->options().trace_clock->find("[x86-tsc]") != std::string::npos, true);
    EXPECT_EQ(report_markers(report_checked_against_trace_cmd(dir + "/t.dat")).size(), 20u);
}

TEST(Record, SigintLeavesACompleteFileAndRestoresTheTopBuffer) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    auto top = tracefs::Instance::top(root);
    ASSERT_TRUE(top);
    const auto before_events = top->enabled_events();
    const auto before_kb = top->buffer_size_kb();
    const auto before_clock = top->clock();
    const auto before_on = top->tracing_on();
    ASSERT_TRUE(before_events && before_kb && before_clock && before_on);
    const std::string dir = scratch_dir("record_sigint");
    const uint64_t kb = *before_kb == 1000 ? 1024 : 1000;
    const pid_t pid = ::fork();
    if (pid == 0) {
        const std::string out = dir + "/s.dat", log = dir + "/s.log";
        std::freopen(log.c_str(), "w", stderr);
        std::freopen((dir + "/s.out").c_str(), "w", stdout);
        ::execl(RINGSCOPE_BIN, "ringscope", "record", "-e", "sched", "-e", "timer", "-b",
                std::to_string(kb).c_str(), "-C", "mono", "-o", out.c_str(), (char*)nullptr);
        ::_exit(127);
    }
    // Wait until tracing is on with our settings, then interrupt.
    bool started = false;
    for (int i = 0; i < 200 && !started; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        auto on = top->tracing_on();
        auto c = top->clock();
        started = on && *on && c && *c == "mono";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ::kill(pid, SIGINT);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(started) << read_file(dir + "/s.log");
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << read_file(dir + "/s.log");
    EXPECT_NE(read_file(dir + "/s.log").find("interrupted"), std::string::npos);

    EXPECT_EQ(*top->enabled_events(), *before_events);
    EXPECT_EQ(*top->buffer_size_kb(), *before_kb);
    EXPECT_EQ(*top->clock(), *before_clock);
    EXPECT_EQ(*top->tracing_on(), *before_on);
    EXPECT_NE(::access((dir + "/s.dat.cpu0").c_str(), F_OK), 0) << "scratch files left behind";

    auto rd = io::TraceDatReader::open(dir + "/s.dat");
    ASSERT_TRUE(rd) << rd.error().to_string();
    ASSERT_EQ(sh(kRs + " report -N " + dir + "/s.dat > " + dir + "/s.txt 2> " + dir + "/s.err"), 0)
        << read_file(dir + "/s.err");
    const std::string text = read_file(dir + "/s.txt");
    EXPECT_NE(text.find("sched_switch:"), std::string::npos);
    if (have_trace_cmd()) {
        ASSERT_EQ(sh("trace-cmd report -N " + dir + "/s.dat > " + dir + "/s.tc 2>/dev/null"), 0);
        EXPECT_EQ(read_file(dir + "/s.tc"), text);
    }
}

TEST(Extract, SavesTheInstanceBufferAsTraceCmdDoes) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string inst_name = unique_name("ext");
    auto inst = tracefs::Instance::create(inst_name, root);
    ASSERT_TRUE(inst);
    ASSERT_TRUE(inst->enable_events("sched"));
    ASSERT_EQ(sh(MARKER_WRITER_BIN " " + inst->path("trace_marker") + " 1000 2>/dev/null"), 0);
    ASSERT_TRUE(inst->set_tracing_on(false));
    const std::string dir = scratch_dir("extract");
    for (const char* comp : {"none", "zstd"}) {
        SCOPED_TRACE(comp);
        const std::string f = dir + "/" + comp + ".dat";
        ASSERT_EQ(sh(kRs + " extract -B " + inst_name + " --compression " + comp + " -o " + f + " > " + f +
                     ".log 2>&1"),
                  0)
            << read_file(f + ".log");
        ASSERT_EQ(sh(kRs + " report -N " + f + " > " + f + ".rs 2>/dev/null"), 0);
        const std::string rs = read_file(f + ".rs");
        // Extract consumes: the first run has the markers, the second an empty buffer.
        EXPECT_EQ(report_markers(rs).size(), std::string(comp) == "none" ? 1000u : 0u);
        if (have_trace_cmd()) {
            ASSERT_EQ(sh("trace-cmd report -N " + f + " > " + f + ".tc 2>/dev/null"), 0);
            EXPECT_EQ(read_file(f + ".tc"), rs);
        }
    }
    EXPECT_TRUE(instance_exists(root, inst_name));  // extract leaves the instance alone
    EXPECT_TRUE(inst->destroy());
}

// Several buffers, as trace-cmd extract takes them: -B (repeatable) and -a leave the top buffer
// out unless -t; each instance's events stay in its buffer.
TEST(Extract, SeveralBuffersWithBAndA) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("extract_several");
    std::vector<tracefs::Instance> insts;
    for (const char* what : {"exa", "exb"}) {
        auto in = tracefs::Instance::create(unique_name(what), root);
        ASSERT_TRUE(in);
        insts.push_back(*in);
    }
    struct Remove {
        std::vector<tracefs::Instance>& v;
        ~Remove() {
            for (auto& i : v) (void)i.destroy();
        }
    } remove{insts};
    const std::string a = insts[0].name(), b = insts[1].name();
    for (const char* args : {"-B A -B B -t", "-a"}) {
        SCOPED_TRACE(args);
        for (size_t i = 0; i < insts.size(); ++i)
            ASSERT_EQ(sh(MARKER_WRITER_BIN " " + insts[i].path("trace_marker") + " " +
                         std::to_string(100 * (i + 1)) + " 2>/dev/null"),
                      0);
        std::string cmd = args;
        cmd = std::regex_replace(cmd, std::regex("-B A"), "-B " + a);
        cmd = std::regex_replace(cmd, std::regex("-B B"), "-B " + b);
        const std::string f = dir + "/x.dat";
        ASSERT_EQ(sh("rm -f " + f + " && " + kRs + " extract " + cmd + " -o " + f + " > " + f + ".log 2>&1"),
                  0)
            << read_file(f + ".log");
        auto rd = io::TraceDatReader::open(f);
        ASSERT_TRUE(rd) << rd.error().to_string();
        std::vector<std::string> names;
        for (const auto& buf : rd->buffers()) names.push_back(buf.name);
        if (std::string(args) == "-a") {
            EXPECT_EQ(names.front(), "");  // the empty top buffer trace-cmd writes first
            EXPECT_TRUE(rd->buffers().front().cpus.empty());
            EXPECT_NE(std::find(names.begin(), names.end(), a), names.end());
            EXPECT_NE(std::find(names.begin(), names.end(), b), names.end());
        } else {
            EXPECT_EQ(names, (std::vector<std::string>{"", a, b}));
            EXPECT_FALSE(rd->buffers().front().cpus.empty());
        }
        const std::string rs = report_checked_against_trace_cmd(f);
        EXPECT_EQ(count(rs, a + ": "), 100u);
        EXPECT_EQ(count(rs, b + ": "), 200u);
    }
}
