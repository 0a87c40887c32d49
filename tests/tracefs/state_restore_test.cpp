// Issue #26: no signal, crash or stdout failure leaves tracefs different from before. Each test
// snapshots every file the command may write (state_snapshot.hpp), runs `record` or `stream` on
// the top buffer with settings that change many of them, ends it with the signal, and compares.
// After a SIGKILL the next tracefs command restores from the journal and says so.
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

// A private journal directory per test, so that a journal left by one test is not another's.
std::string journal_env(const std::string& dir) {
    return "RINGSCOPE_JOURNAL_DIR=" + dir + "/journal";
}

// Until tracing is on with the clock the command sets (its set-up is complete).
bool wait_started(const std::string& root, const char* clock) {
    auto top = tracefs::Instance::top(root);
    for (int i = 0; i < 300; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        auto on = top->tracing_on();
        auto c = top->clock();
        if (on && *on && c && *c == clock) return true;
    }
    return false;
}

// Settings that touch many files: events (one with a filter, one with a trigger), size, clock, stacktrace,
// event-fork, a pid filter and the CPU mask.
std::vector<std::string> busy_setup() {
    return {"-e",
            "sched:sched_switch",
            "-f",
            "prev_pid>=0",
            "-e",
            "sched:sched_wakeup",
            "-R",
            "traceon",
            "-e",
            "irq",
            "-b",
            "1100",
            "-C",
            "mono",
            "-T",
            "-O",
            "event-fork",
            "-P",
            std::to_string(::getpid()),
            "-M",
            "-1"};
}

void expect_readable(const std::string& file) {
    ASSERT_EQ(sh(kRs + " report -N " + file + " > " + file + ".txt 2> " + file + ".rerr"), 0)
        << read_file(file + ".rerr");
    if (have_trace_cmd()) {
        ASSERT_EQ(sh("trace-cmd report -N " + file + " > " + file + ".tc 2>/dev/null"), 0);
        EXPECT_EQ(read_file(file + ".tc"), read_file(file + ".txt"));
    }
}

}  // namespace

TEST(StateRestore, RecordEndedBySignalRestoresEverythingAndLeavesAReadableFile) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
        SCOPED_TRACE(strsignal(sig));
        const std::string dir = scratch_dir(std::string("restore_record_") + std::to_string(sig));
        const Snapshot before = tracefs_snapshot(root);
        auto args = busy_setup();
        args.insert(args.begin(), "record");
        for (const char* a : {"-o", "", "--compression", "none"}) args.push_back(a);
        args[args.size() - 3] = dir + "/s.dat";
        const pid_t pid = spawn(dir, args, "rec");
        ASSERT_TRUE(wait_started(root, "mono")) << read_file(dir + "/rec.err");
        // While it runs: the settings are there.
        EXPECT_NE(read_file(root + "/set_event").find("sched:sched_switch"), std::string::npos);
        EXPECT_EQ(read_file(root + "/events/sched/sched_switch/filter"), "(prev_pid>=0)\n");
        EXPECT_EQ(read_file(root + "/options/stacktrace"), "1\n");
        EXPECT_EQ(read_file(root + "/set_event_pid"), std::to_string(::getpid()) + "\n");
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        ::kill(pid, sig);
        const int status = wait_exit(pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << read_file(dir + "/rec.err");
        EXPECT_NE(read_file(dir + "/rec.err").find("interrupted"), std::string::npos);
        EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
        expect_readable(dir + "/s.dat");
        EXPECT_TRUE(subdirs(dir + "/journal").empty());
    }
}

TEST(StateRestore, StreamEndedBySignalRestoresEverything) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
        SCOPED_TRACE(strsignal(sig));
        const std::string dir = scratch_dir(std::string("restore_stream_") + std::to_string(sig));
        const Snapshot before = tracefs_snapshot(root);
        auto args = busy_setup();
        args.insert(args.begin(), "stream");
        const pid_t pid = spawn(dir, args, "stream");
        ASSERT_TRUE(wait_started(root, "mono")) << read_file(dir + "/stream.err");
        ::kill(pid, sig);
        const int status = wait_exit(pid);
        EXPECT_TRUE(WIFEXITED(status)) << status << read_file(dir + "/stream.err");
        EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
    }
}

// The issue's classic: head closes the pipe after two lines; stream gets EPIPE / SIGPIPE.
TEST(StateRestore, StreamIntoHeadRestoresEverything) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("restore_head");
    const Snapshot before = tracefs_snapshot(root);
    ASSERT_EQ(sh(journal_env(dir) + " timeout 60 " + kRs +
                 " stream -e sched_wakeup -e sched_switch | head -2 > " + dir + "/out.txt"),
              0);
    const std::string out = read_file(dir + "/out.txt");
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2) << out;
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
    // And `timeout -s HUP 1 ringscope stream ...`.
    EXPECT_EQ(sh(journal_env(dir) + " timeout --preserve-status -s HUP 1 " + kRs +
                 " stream -e sched_wakeup > /dev/null"),
              0);
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
}

TEST(StateRestore, AfterSigkillTheNextCommandRestoresFromTheJournal) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("restore_kill");
    const Snapshot before = tracefs_snapshot(root);
    for (const char* next : {"stat", "reset --restore"}) {
        SCOPED_TRACE(next);
        auto args = busy_setup();
        args.insert(args.begin(), "record");
        args.push_back("-o");
        args.push_back(dir + "/k.dat");
        const pid_t pid = spawn(dir, args, "rec");
        ASSERT_TRUE(wait_started(root, "mono")) << read_file(dir + "/rec.err");
        ::kill(pid, SIGKILL);
        wait_exit(pid);
        EXPECT_NE(snapshot_diff(before, tracefs_snapshot(root)), "") << "SIGKILL left nothing to restore?";
        ASSERT_EQ(
            sh(journal_env(dir) + " " + kRs + " " + next + " > " + dir + "/next.out 2> " + dir + "/next.err"),
            0)
            << read_file(dir + "/next.err");
        const std::string err = read_file(dir + "/next.err");
        EXPECT_NE(err.find("restored the tracing state left behind by ringscope pid " + std::to_string(pid)),
                  std::string::npos)
            << err;
        EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
        EXPECT_TRUE(subdirs(dir + "/journal").empty());
        sh("rm -f " + dir + "/k.dat*");
    }
}

namespace {

off_t file_size(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

// Until the file stops growing (the reader spliced every whole sub-buffer it will get).
void wait_stable(const std::string& path) {
    off_t last = -2;
    for (int i = 0; i < 100; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const off_t now = file_size(path);
        if (now > 0 && now == last) return;
        last = now;
    }
}

}  // namespace

// A record killed by SIGKILL leaves OUTPUT.head and OUTPUT.cpuN; the next tracefs command restores
// the state from the journal and saves OUTPUT from them, each CPU up to its last whole sub-buffer.
// `record --recover OUTPUT` does the same by hand (then the journal finds nothing left to save).
TEST(StateRestore, AfterSigkillTheRecordedDataIsSaved) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("restore_kill_data");
    const Snapshot before = tracefs_snapshot(root);
    constexpr int kMarkers = 20000;
    for (const bool by_hand : {false, true}) {
        SCOPED_TRACE(by_hand ? "record --recover" : "the next command");
        const std::string inst = unique_name("kill");
        const std::string out = dir + (by_hand ? "/h.dat" : "/k.dat");
        const pid_t pid = spawn(dir,
                                {"record", "-B", inst, "-s", "1000", "-e", "sched:sched_process_exit",
                                 "--compression", "none", "-o", out},
                                "rec");
        // An assertion that fails below must not leave the record running.
        struct Interrupt {
            pid_t pid;
            ~Interrupt() {
                if (::kill(pid, SIGINT) == 0) ::waitpid(pid, nullptr, 0);
            }
        } interrupt{pid};
        const std::string in = root + "/instances/" + inst;
        // A new instance starts with tracing on: its set-up is complete once the head exists (written
        // with tracing off) and tracing is on again.
        for (int i = 0; i < 300 && (file_size(out + ".head") < 0 || read_file(in + "/tracing_on") != "1\n");
             ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ASSERT_EQ(read_file(in + "/tracing_on"), "1\n") << read_file(dir + "/rec.err");
        ASSERT_EQ(sh(std::string("taskset -c 0 ") + MARKER_WRITER_BIN + " " + in + "/trace_marker " +
                     std::to_string(kMarkers) + " 2> " + dir + "/mw.err"),
                  0)
            << read_file(dir + "/mw.err") << read_file(in + "/tracing_on") << read_file(dir + "/rec.err");
        wait_stable(out + ".cpu0");
        if (by_hand) {
            // Not while the record runs.
            EXPECT_EQ(sh(kRs + " record --recover " + out + " 2> " + dir + "/early.err"), 1);
            EXPECT_NE(read_file(dir + "/early.err").find("the recording is still running"), std::string::npos)
                << read_file(dir + "/early.err");
            EXPECT_EQ(file_size(out), -1);
        }
        ::kill(pid, SIGKILL);
        wait_exit(pid);
        const off_t spliced = file_size(out + ".cpu0");
        ASSERT_GT(spliced, 0) << "nothing was spliced before the kill";
        ASSERT_EQ(file_size(out), -1);
        if (by_hand) {
            // Before the recovery, report says how to get the file: one line, exit 1.
            EXPECT_EQ(sh(kRs + " report " + out + " > /dev/null 2> " + dir + "/report.err"), 1);
            const std::string rerr = read_file(dir + "/report.err");
            EXPECT_NE(rerr.find("run `ringscope record --recover " + out + "`"), std::string::npos) << rerr;
            EXPECT_EQ(std::count(rerr.begin(), rerr.end(), '\n'), 1) << rerr;
            ASSERT_EQ(sh(kRs + " record --recover " + out + " 2> " + dir + "/recover.err"), 0)
                << read_file(dir + "/recover.err");
        }
        ASSERT_EQ(sh(journal_env(dir) + " " + kRs + " stat > /dev/null 2> " + dir + "/next.err"), 0);
        const std::string err = read_file(dir + "/next.err");
        EXPECT_NE(err.find("restored the tracing state left behind by ringscope pid " + std::to_string(pid)),
                  std::string::npos)
            << err;
        const std::string saved =
            "saved the trace of the record killed as pid " + std::to_string(pid) + ": " + out;
        EXPECT_EQ(err.find(saved) != std::string::npos, !by_hand) << err;
        EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
        EXPECT_TRUE(subdirs(dir + "/journal").empty());
        for (const char* scratch : {".head", ".cpu0", ".cpu1", ".reserve"})
            EXPECT_EQ(file_size(out + scratch), -1) << scratch;
        expect_readable(out);
        // CPU 0's data: every whole sub-buffer spliced before the kill.
        auto rd = io::TraceDatReader::open(out);
        ASSERT_TRUE(rd) << rd.error().to_string();
        const auto idx = rd->buffer_index(inst);
        ASSERT_TRUE(idx);
        const io::BufferInfo& buf = rd->buffers()[*idx];
        ASSERT_FALSE(buf.cpus.empty());
        EXPECT_EQ(buf.cpus[0].cpu, 0u);
        EXPECT_EQ(buf.cpus[0].size, static_cast<uint64_t>(spliced) / buf.page_size * buf.page_size);
        // The markers in it: n=0 .. n=K-1, none missing.
        const std::string text = read_file(out + ".txt");
        int k = 0;
        for (size_t p = 0; (p = text.find("tracing_mark_write: n=", p)) != std::string::npos; ++k) {
            p += 22;
            ASSERT_EQ(text.compare(p, std::to_string(k).size() + 1, std::to_string(k) + "\n"), 0)
                << "marker " << k << " missing";
        }
        EXPECT_GT(k, 0);
        EXPECT_LE(k, kMarkers);
    }
}

TEST(StateRestore, StartLeavesTracingOnAndResetRestoreUndoesIt) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("restore_start");
    const Snapshot before = tracefs_snapshot(root);
    const std::string env = journal_env(dir) + " ";
    ASSERT_EQ(sh(env + kRs + " start -e sched:sched_switch -f 'next_pid>0' -e irq -C global -b 1275 2> " +
                 dir + "/start.err"),
              0)
        << read_file(dir + "/start.err");
    EXPECT_EQ(read_file(root + "/tracing_on"), "1\n");
    EXPECT_EQ(read_file(root + "/buffer_size_kb"), "1275\n");
    EXPECT_EQ(read_file(root + "/events/sched/sched_switch/filter"), "(next_pid>0)\n");
    EXPECT_NE(read_file(root + "/trace_clock").find("[global]"), std::string::npos);
    // stat as trace-cmd stat prints it, byte for byte.
    ASSERT_EQ(sh(env + kRs + " stat > " + dir + "/stat.rs"), 0);
    const std::string stat = read_file(dir + "/stat.rs");
    EXPECT_NE(stat.find("sched_switch \"(next_pid>0)\""), std::string::npos) << stat;
    if (have_trace_cmd()) {
        ASSERT_EQ(sh("trace-cmd stat > " + dir + "/stat.tc 2>/dev/null"), 0);
        EXPECT_EQ(read_file(dir + "/stat.tc"), stat);
    }
    ASSERT_EQ(sh(env + kRs + " stop"), 0);
    EXPECT_EQ(read_file(root + "/tracing_on"), "0\n");
    ASSERT_EQ(sh(env + kRs + " show > " + dir + "/show.txt"), 0);
    EXPECT_EQ(read_file(dir + "/show.txt").rfind("# tracer: nop", 0), 0u);
    ASSERT_EQ(sh(env + kRs + " reset --restore 2> " + dir + "/restore.err"), 0);
    EXPECT_NE(read_file(dir + "/restore.err").find("changed by `start`"), std::string::npos)
        << read_file(dir + "/restore.err");
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
}

// The function tracer is locked on this project's machines: the refusal is one clear error and
// nothing stays changed. Where the kernel allows it, the tracer is set while recording instead.
TEST(StateRestore, KernelRefusalOfTheFunctionTracerIsClear) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("refuse_function");
    const Snapshot before = tracefs_snapshot(root);
    const int rc = sh(journal_env(dir) + " " + kRs + " record -p function -e sched:sched_switch -o " + dir +
                      "/f.dat -- true > " + dir + "/f.log 2>&1");
    const std::string log = read_file(dir + "/f.log");
    if (rc == 0) {
        GTEST_SKIP() << "this kernel allows the function tracer";
    }
    EXPECT_EQ(rc, 1) << log;
    EXPECT_NE(log.find("the kernel refused the function tracer"), std::string::npos) << log;
    EXPECT_NE(log.find(root + "/current_tracer"), std::string::npos) << log;
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
    // -l: set_ftrace_filter cannot even be opened there.
    EXPECT_EQ(sh(journal_env(dir) + " " + kRs + " record -l schedule -p function -o " + dir +
                 "/g.dat -- true > " + dir + "/g.log 2>&1"),
              1);
    EXPECT_NE(read_file(dir + "/g.log").find("the kernel refused the function filter 'schedule'"),
              std::string::npos)
        << read_file(dir + "/g.log");
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
}
