// Issue #26: several -B buffers in one record, as trace-cmd record takes them: the options before
// the first -B are the top buffer's, each -B NAME's own options follow it. Each buffer's settings
// are read back from tracefs while tracing runs; the file holds every buffer (v6 buffer options,
// v7 BUFFER sections) and trace-cmd reads it as ringscope does; every signal (and a SIGKILL
// followed by the next command) leaves tracefs as it was.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "framework/io/trace_dat_reader.hpp"
#include "state_snapshot.hpp"
#include "tracefs_test_util.hpp"

using namespace ringscope;
using namespace rs_tracefs_test;

namespace {

const std::string kRs = RINGSCOPE_BIN;

// The top buffer, instance A (its own size, a marker), instance B (its own clock and filter).
std::vector<std::string> three_buffers(const std::string& a, const std::string& b) {
    return {"-e", "sched:sched_switch",       "-C", "mono",          "-B", a,
            "-e", "sched:sched_process_exit", "-b", "597",           "-B", b,
            "-e", "sched:sched_wakeup",       "-f", "common_pid>=0", "-C", "global"};
}

// Lines of a report whose buffer prefix is NAME (trace-cmd right-aligns it, then ": ").
std::vector<std::string> lines_of(const std::string& text, const std::string& name) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(pos, end - pos);
        size_t lead = line.find_first_not_of(' ');
        if (lead != std::string::npos && line.compare(lead, name.size() + 2, name + ": ") == 0)
            out.push_back(line);
        pos = end + 1;
    }
    return out;
}

bool all_contain(const std::vector<std::string>& lines, const char* what) {
    for (const auto& l : lines)
        if (l.find(what) == std::string::npos) return false;
    return true;
}

off_t file_size(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

}  // namespace

TEST(MultiBuffer, EachBufferGetsItsOwnOptionsAndTheFileHoldsThemAll) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const Snapshot before = tracefs_snapshot(root);
    for (const char* version : {"7", "6"}) {
        SCOPED_TRACE(std::string("file version ") + version);
        const std::string dir = scratch_dir(std::string("multi_buffer_v") + version);
        const std::string a = unique_name("ma"), b = unique_name("mb");
        const std::string ia = root + "/instances/" + a, ib = root + "/instances/" + b;
        // COMMAND reads the settings while tracing runs, then writes a marker into A.
        const std::string probe = "cat " + ia + "/buffer_size_kb " + ia + "/set_event " + ib +
                                  "/trace_clock " + ib + "/set_event " + ib +
                                  "/events/sched/sched_wakeup/filter " + root + "/set_event " + root +
                                  "/trace_clock " + ia + "/tracing_on " + ib + "/tracing_on > " + dir +
                                  "/live.txt; echo multi-marker > " + ia + "/trace_marker";
        std::string cmd = kRs + " record --file-version " + version + " -o " + dir + "/m.dat";
        for (const auto& arg : three_buffers(a, b)) cmd += " '" + arg + "'";
        cmd += " -- sh -c '" + probe + "' > " + dir + "/rec.log 2>&1";
        ASSERT_EQ(sh(cmd), 0) << read_file(dir + "/rec.log");
        EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
        EXPECT_FALSE(instance_exists(root, a));
        EXPECT_FALSE(instance_exists(root, b));
        EXPECT_EQ(read_file(dir + "/live.txt"),
                  "597\nsched:sched_process_exit\n"
                  "local [global] counter uptime perf mono mono_raw boot tai x86-tsc\n"
                  "sched:sched_wakeup\n(common_pid>=0)\nsched:sched_switch\n"
                  "local global counter uptime perf [mono] mono_raw boot tai x86-tsc\n1\n1\n");
        for (const char* scratch : {".head", ".cpu0", ".reserve"})
            EXPECT_EQ(file_size(dir + "/m.dat" + scratch), -1);
        EXPECT_EQ(file_size(dir + "/m.dat." + b + ".cpu0"), -1);

        auto rd = io::TraceDatReader::open(dir + "/m.dat");
        ASSERT_TRUE(rd) << rd.error().to_string();
        EXPECT_EQ(rd->file_version(), std::stoul(version));
        ASSERT_EQ(rd->buffers().size(), 3u);
        EXPECT_EQ(rd->buffers()[0].name, "");
        EXPECT_EQ(rd->buffers()[1].name, a);
        EXPECT_EQ(rd->buffers()[2].name, b);
        for (const auto& buf : rd->buffers()) EXPECT_FALSE(buf.cpus.empty()) << buf.name;
        if (std::string(version) == "7") {
            EXPECT_EQ(rd->buffers()[0].clock, "mono");
            EXPECT_EQ(rd->buffers()[2].clock, "global");
        }

        ASSERT_EQ(sh(kRs + " report -N " + dir + "/m.dat > " + dir + "/m.rs 2> " + dir + "/m.err"), 0)
            << read_file(dir + "/m.err");
        const std::string text = read_file(dir + "/m.rs");
        if (have_trace_cmd()) {
            ASSERT_EQ(sh("trace-cmd report -N " + dir + "/m.dat > " + dir + "/m.tc 2>/dev/null"), 0);
            EXPECT_EQ(read_file(dir + "/m.tc"), text) << "diff " << dir << "/m.tc " << dir << "/m.rs";
        }
        // Each buffer has only its own events: A the exits and the marker, B the wakeups.
        const auto in_a = lines_of(text, a), in_b = lines_of(text, b);
        EXPECT_NE(text.find(a + ": "), std::string::npos);
        EXPECT_EQ(
            std::count_if(in_a.begin(), in_a.end(),
                          [](const std::string& l) { return l.find("multi-marker") != std::string::npos; }),
            1);
        for (const auto& l : in_a)
            EXPECT_TRUE(l.find("sched_process_exit") != std::string::npos ||
                        l.find("multi-marker") != std::string::npos)
                << l;
        EXPECT_FALSE(in_b.empty());
        EXPECT_TRUE(all_contain(in_b, "sched_wakeup")) << text;
        EXPECT_EQ(text.find("sched_switch") == std::string::npos, false);
        // --stat: each instance's CPU stats after a "Buffer: NAME" line, as trace-cmd prints them.
        ASSERT_EQ(sh(kRs + " report --stat " + dir + "/m.dat > " + dir + "/s.rs 2>&1"), 0);
        EXPECT_NE(read_file(dir + "/s.rs").find("Buffer: " + b), std::string::npos);
        if (have_trace_cmd()) {
            ASSERT_EQ(sh("trace-cmd report --stat " + dir + "/m.dat > " + dir + "/s.tc 2>&1"), 0);
            EXPECT_EQ(read_file(dir + "/s.tc"), read_file(dir + "/s.rs"));
        }
    }
}

// INT, TERM, HUP and PIPE end the record through its normal path; KILL leaves the journals, which
// the next tracefs command replays (and it saves the file from the scratch files of every buffer).
TEST(MultiBuffer, EverySignalPutsEveryBufferBack) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const Snapshot before = tracefs_snapshot(root);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGKILL}) {
        SCOPED_TRACE(strsignal(sig));
        const std::string dir = scratch_dir("multi_signal_" + std::to_string(sig));
        const std::string a = unique_name("sa"), b = unique_name("sb"), out = dir + "/s.dat";
        std::vector<std::string> args{"record", "-o", out, "--compression", "none"};
        for (auto& arg : three_buffers(a, b)) args.push_back(arg);
        const pid_t pid = spawn(dir, args, "rec");
        // Tracing is turned on in the top buffer first, then in each instance, after the head is written.
        const std::string ib = root + "/instances/" + b;
        bool started = false;
        for (int i = 0; i < 300 && !started; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            started = file_size(out + ".head") > 0 && read_file(root + "/tracing_on") == "1\n" &&
                      read_file(ib + "/tracing_on") == "1\n" &&
                      read_file(ib + "/trace_clock").find("[global]") != std::string::npos;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ::kill(pid, sig);
        const int status = wait_exit(pid);
        ASSERT_TRUE(started) << read_file(dir + "/rec.err");
        if (sig == SIGKILL) {
            EXPECT_TRUE(WIFSIGNALED(status));
            EXPECT_TRUE(instance_exists(root, a));
            EXPECT_EQ(file_size(out), -1);
            ASSERT_EQ(sh("RINGSCOPE_JOURNAL_DIR=" + dir + "/journal " + kRs + " stat > /dev/null 2> " + dir +
                         "/next.err"),
                      0);
            EXPECT_NE(read_file(dir + "/next.err").find("saved the trace of the record killed"),
                      std::string::npos)
                << read_file(dir + "/next.err");
        } else {
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(dir + "/rec.err");
        }
        EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
        EXPECT_TRUE(subdirs(dir + "/journal").empty());
        EXPECT_EQ(file_size(out + ".head"), -1);
        EXPECT_EQ(file_size(out + "." + b + ".cpu0"), -1);
        auto rd = io::TraceDatReader::open(out);
        ASSERT_TRUE(rd) << rd.error().to_string();
        ASSERT_EQ(rd->buffers().size(), 3u);
        EXPECT_EQ(rd->buffers()[2].name, b);
        ASSERT_EQ(sh(kRs + " report -N " + out + " > " + out + ".rs 2>/dev/null"), 0);
        if (have_trace_cmd()) {
            ASSERT_EQ(sh("trace-cmd report -N " + out + " > " + out + ".tc 2>/dev/null"), 0);
            EXPECT_EQ(read_file(out + ".tc"), read_file(out + ".rs"));
        }
    }
}
