// record's trace-cmd options on the real tracefs (issue #26): the effect read back while tracing
// runs (from inside COMMAND), and the file read by trace-cmd report the same way.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <gtest/gtest.h>

#include "framework/io/trace_dat_reader.hpp"
#include "state_snapshot.hpp"
#include "tracefs_test_util.hpp"

using namespace ringscope;
using namespace rs_tracefs_test;

namespace {

const std::string kRs = RINGSCOPE_BIN;

void same_report_as_trace_cmd(const std::string& file) {
    ASSERT_EQ(sh(kRs + " report -N " + file + " > " + file + ".rs 2> " + file + ".err"), 0)
        << read_file(file + ".err");
    if (!have_trace_cmd()) return;
    ASSERT_EQ(sh("trace-cmd report -N " + file + " > " + file + ".tc 2>/dev/null"), 0);
    EXPECT_EQ(read_file(file + ".tc"), read_file(file + ".rs")) << "diff " << file << ".tc " << file << ".rs";
}

}  // namespace

// -F -c: COMMAND's pid is in set_event_pid and event-fork is on before it runs; every event in the
// file is COMMAND's or its child's.
TEST(RecordOptions, FilterTaskTracesOnlyTheCommandAndItsChildren) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("recopt_F");
    const std::string inst = unique_name("F");
    const Snapshot before = tracefs_snapshot(root);
    const std::string in = root + "/instances/" + inst;
    ASSERT_EQ(sh("RINGSCOPE_JOURNAL_DIR=" + dir + "/j " + kRs + " record -B " + inst +
                 " -F -c -e sched:sched_process_exec -e sched:sched_process_exit -e sched:sched_process_fork"
                 " -T -C mono --compression none -o " +
                 dir + "/f.dat -- sh -c 'echo $$ > " + dir + "/pid; cat " + in + "/set_event_pid > " + dir +
                 "/pids; cat " + in + "/options/event-fork " + in + "/options/stacktrace " + in +
                 "/trace_clock > " + dir + "/opts; /bin/true' > " + dir + "/log 2>&1"),
              0)
        << read_file(dir + "/log");
    const std::string pid = read_file(dir + "/pid");
    ASSERT_FALSE(pid.empty());
    // event-fork adds the children to set_event_pid: the shell's pid is there, first.
    EXPECT_EQ(read_file(dir + "/pids").substr(0, pid.size()), pid) << read_file(dir + "/pids");
    EXPECT_EQ(read_file(dir + "/opts").substr(0, 4), "1\n1\n");
    EXPECT_NE(read_file(dir + "/opts").find("[mono]"), std::string::npos);
    EXPECT_FALSE(instance_exists(root, inst));
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
    same_report_as_trace_cmd(dir + "/f.dat");
    const std::string text = read_file(dir + "/f.dat.rs");
    EXPECT_NE(text.find("sched_process_exec:"), std::string::npos) << text;  // cat and true, exec'd
    EXPECT_NE(text.find("sched_process_fork:"), std::string::npos) << text;
}

// -m: each CPU's data is cut to about the limit, keeping the newest events.
TEST(RecordOptions, MaxSizePerCpuKeepsTheNewestData) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("recopt_m");
    const std::string inst = unique_name("m");
    constexpr long kN = 100000;
    ASSERT_EQ(sh("RINGSCOPE_JOURNAL_DIR=" + dir + "/j taskset -c 0 " + kRs + " record -B " + inst +
                 " -m 256 -b 4096 -e sched:sched_process_exit --compression none -o " + dir + "/m.dat -- " +
                 MARKER_WRITER_BIN + " " + root + "/instances/" + inst + "/trace_marker " +
                 std::to_string(kN) + " > " + dir + "/log 2>&1"),
              0)
        << read_file(dir + "/log");
    auto rd = io::TraceDatReader::open(dir + "/m.dat");
    ASSERT_TRUE(rd) << rd.error().to_string();
    same_report_as_trace_cmd(dir + "/m.dat");
    const std::string text = read_file(dir + "/m.dat.rs");
    // ~3 MB of markers went through; at most 256 KB per CPU stayed, the end of it.
    EXPECT_NE(text.find("tracing_mark_write: n=" + std::to_string(kN - 1) + "\n"), std::string::npos);
    EXPECT_EQ(text.find("tracing_mark_write: n=0\n"), std::string::npos);
    size_t markers = 0;
    for (size_t p = 0; (p = text.find("tracing_mark_write", p)) != std::string::npos; ++p) ++markers;
    EXPECT_GT(markers, 1000u);
    EXPECT_LT(markers, 30000u);
    // As trace-cmd's two halves of KB/2: between half the limit and the limit, however large the
    // reader's writes were, and the newest markers without a hole.
    const auto idx = rd->buffer_index(inst);
    ASSERT_TRUE(idx);
    for (const auto& c : rd->buffers()[*idx].cpus) {
        EXPECT_LE(c.size, 256u << 10) << "CPU " << c.cpu;
        if (c.cpu == 0) {
            EXPECT_GE(c.size, 128u << 10);
        }
    }
    const size_t first = text.find("tracing_mark_write: n=");
    ASSERT_NE(first, std::string::npos);
    long n = std::atol(text.c_str() + first + 22);
    for (size_t p = first; (p = text.find("tracing_mark_write: n=", p)) != std::string::npos; p += 22, ++n)
        ASSERT_EQ(std::atol(text.c_str() + p + 22), n) << "a hole in the markers kept";
    EXPECT_EQ(n, kN);
}

// tracefs not mounted: mounted on /sys/kernel/tracing, as libtracefs does (in a private mount
// namespace, so that nobody else sees it unmounted).
TEST(RecordOptions, TracefsIsMountedWhenMissing) {
    REQUIRE_TRACEFS(root);
    if (root != "/sys/kernel/tracing" || sh("command -v unshare > /dev/null") != 0) {
        GTEST_SKIP() << "needs tracefs on /sys/kernel/tracing and unshare";
    }
    const std::string dir = scratch_dir("recopt_mount");
    const int rc =
        sh("unshare -m sh -c 'umount /sys/kernel/tracing && ! mountpoint -q /sys/kernel/tracing && " + kRs +
           " list -t > " + dir + "/t && mountpoint -q /sys/kernel/tracing' > " + dir + "/log 2>&1");
    if (read_file(dir + "/log").find("umount:") != std::string::npos) {
        GTEST_SKIP() << read_file(dir + "/log");
    }
    EXPECT_EQ(rc, 0) << read_file(dir + "/log");
    EXPECT_NE(read_file(dir + "/t").find("nop"), std::string::npos);
}

// list and stat print what trace-cmd list and trace-cmd stat print, byte for byte.
TEST(TracefsCommands, ListAndStatPrintWhatTraceCmdPrints) {
    REQUIRE_TRACEFS(root);
    if (!have_trace_cmd()) {
        GTEST_SKIP() << "trace-cmd is not installed";
    }
    TracefsLock lock;
    const std::string dir = scratch_dir("list_as_trace_cmd");
    for (const char* args :
         {"-e", "-e sched_sw -F", "-e sched_switch -F --full", "-e ^irq:", "-e irq:handler_e", "-e SCHED_SW",
          "-e sched_switch -l", "-s", "-t", "-o", "-C", "-B", "stat", "stat -o"}) {
        SCOPED_TRACE(args);
        const std::string cmd = std::string(args).rfind("stat", 0) == 0 ? args : std::string("list ") + args;
        ASSERT_EQ(sh(kRs + " " + cmd + " > " + dir + "/rs 2>/dev/null"), 0);
        ASSERT_EQ(sh("trace-cmd " + cmd + " > " + dir + "/tc 2>/dev/null"), 0);
        EXPECT_EQ(read_file(dir + "/rs"), read_file(dir + "/tc"));
    }
}

namespace {

size_t count_of(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
    return n;
}

}  // namespace

// -s, -r and --no-filter, read back from inside COMMAND: with -s 1000 the readers splice the 3000
// markers' full pages at once (without it they sleep until the buffer_percent watermark, half of
// 4 MB); -r 10 runs each reader SCHED_FIFO 10; the readers' tids are in set_event_notrace_pid
// unless --no-filter.
TEST(RecordOptions, ReaderIntervalPriorityAndOwnThreads) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("recopt_s");
    const Snapshot before = tracefs_snapshot(root);
    const auto ncpu = static_cast<size_t>(::sysconf(_SC_NPROCESSORS_ONLN));
    for (const bool knobs : {true, false}) {
        SCOPED_TRACE(knobs ? "-s 1000 -r 10" : "--no-filter");
        const std::string inst = unique_name("s");
        const std::string in = root + "/instances/" + inst, out = dir + "/" + inst;
        ASSERT_EQ(
            sh("RINGSCOPE_JOURNAL_DIR=" + dir + "/j " + kRs + " record -B " + inst + " -b 4096 " +
               (knobs ? "-s 1000 -r 10" : "--no-filter") +
               " -e sched:sched_process_exit --compression none -o " + out + ".dat -- sh -c 'taskset -c 0 " +
               MARKER_WRITER_BIN + " " + in + "/trace_marker 3000; sleep 0.5; stat -c %s " + out +
               ".dat.cpu0 > " + out + ".size; cat " + in + "/set_event_notrace_pid > " + out +
               ".notrace; for t in /proc/$PPID/task/*; do chrt -p ${t##*/}; done > " + out + ".chrt' > " +
               out + ".log 2>&1"),
            0)
            << read_file(out + ".log");
        const long spliced = std::atol(read_file(out + ".size").c_str());
        const std::string notrace = read_file(out + ".notrace"), chrt = read_file(out + ".chrt");
        if (knobs) {
            EXPECT_GE(spliced, 16 * 4096);
            EXPECT_EQ(count_of(notrace, "\n"), ncpu) << notrace;
            EXPECT_EQ(count_of(chrt, "SCHED_FIFO"), ncpu) << chrt;
            EXPECT_EQ(count_of(chrt, "scheduling priority: 10"), ncpu) << chrt;
        } else {
            EXPECT_EQ(spliced, 0);
            EXPECT_EQ(notrace, "");
            EXPECT_EQ(count_of(chrt, "SCHED_FIFO"), 0u) << chrt;
        }
        same_report_as_trace_cmd(out + ".dat");
        EXPECT_EQ(count_of(read_file(out + ".dat.rs"), "tracing_mark_write"), 3000u);
    }
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
}

// -k leaves the set-up (the instance, its events, -d's nofunction-trace) and keeps the journal for
// `reset --restore`; --date's own short-lived instance is journaled too (a kill while it exists
// does not leave it), and is gone.
TEST(RecordOptions, KeepLeavesTheSetUpAndDateInstanceIsJournaled) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("recopt_k");
    const Snapshot before = tracefs_snapshot(root);
    const std::string inst = unique_name("k");
    const std::string in = root + "/instances/" + inst, env = "RINGSCOPE_JOURNAL_DIR=" + dir + "/j ";
    ASSERT_EQ(sh(env + kRs + " record -k -B " + inst + " --date -d -e sched:sched_process_exit -o " + dir +
                 "/k.dat -- true > " + dir + "/log 2>&1"),
              0)
        << read_file(dir + "/log");
    EXPECT_TRUE(instance_exists(root, inst));
    EXPECT_EQ(read_file(in + "/events/sched/sched_process_exit/enable"), "1\n");
    EXPECT_EQ(read_file(in + "/options/function-trace"), "0\n");
    sh("cat " + dir + "/j/started.* > " + dir + "/journal 2>/dev/null");
    const std::string journal = read_file(dir + "/journal");
    EXPECT_NE(journal.find("i\t" + root + "/instances/ringscope-date-"), std::string::npos) << journal;
    EXPECT_NE(journal.find("i\t" + in + "\t"), std::string::npos) << journal;
    EXPECT_EQ(sh("ls -d " + root + "/instances/ringscope-date-* > /dev/null 2>&1"), 2);
    auto rd = io::TraceDatReader::open(dir + "/k.dat");
    ASSERT_TRUE(rd) << rd.error().to_string();
    EXPECT_TRUE(rd->options().date.has_value());
    ASSERT_EQ(sh(env + kRs + " reset --restore 2> " + dir + "/restore.err"), 0)
        << read_file(dir + "/restore.err");
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
}

// -R: each trigger in the trigger file of the -e before it while recording, also for an event after
// -v (the trigger without the event); all of them taken back at the end, and a trigger the kernel
// refuses is one error naming the file, with nothing left changed.
TEST(RecordOptions, TriggersAreSetWhileRecordingAndTakenBack) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string dir = scratch_dir("recopt_R");
    const Snapshot before = tracefs_snapshot(root);
    const std::string ev = root + "/events/sched/";
    const std::string env = "RINGSCOPE_JOURNAL_DIR=" + dir + "/j ";
    ASSERT_EQ(sh(env + kRs + " record -e sched:sched_process_exit -R 'stacktrace if common_pid>0'" +
                 " -v -e sched:sched_process_fork -R traceon -R stacktrace:2 -o " + dir +
                 "/r.dat -- sh -c 'cat " + ev + "sched_process_exit/trigger > " + dir + "/exit; cat " + ev +
                 "sched_process_fork/trigger > " + dir + "/fork; cat " + ev + "sched_process_fork/enable > " +
                 dir + "/fork.enable' > " + dir + "/log 2>&1"),
              0)
        << read_file(dir + "/log");
    EXPECT_EQ(read_file(dir + "/exit"), "stacktrace:unlimited if common_pid>0\n");
    const std::string fork = read_file(dir + "/fork");
    EXPECT_NE(fork.find("traceon:unlimited\n"), std::string::npos) << fork;
    EXPECT_NE(fork.find("stacktrace:count="), std::string::npos) << fork;
    // Not enabled: "0*" is the kernel's "off, with triggers attached".
    EXPECT_EQ(read_file(dir + "/fork.enable").substr(0, 1), "0");
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
    EXPECT_EQ(sh(env + kRs + " record -e sched:sched_process_exit -R traceon -R bogus -o " + dir +
                 "/b.dat -- true > " + dir + "/bad 2>&1"),
              1);
    const std::string bad = read_file(dir + "/bad");
    EXPECT_NE(bad.find(ev + "sched_process_exit/trigger: the kernel refused the trigger 'bogus'"),
              std::string::npos)
        << bad;
    EXPECT_EQ(std::count(bad.begin(), bad.end(), '\n'), 1) << bad;
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
}
