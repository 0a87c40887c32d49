// trace-cmd record's options (issue #26) against a fake tracefs folder (RINGSCOPE_TRACEFS, the one
// place the root comes from): each option's file holds its value while `start` has it set, and
// `reset --restore` puts every file back; the combinations trace-cmd refuses are refused with its
// reasons. The function tracer, locked on the real machines, is tested here.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "state_snapshot.hpp"
#include "tracefs_test_util.hpp"

using namespace rs_tracefs_test;

namespace {

const std::string kRs = RINGSCOPE_BIN;

void put(const std::string& path, const std::string& text) {
    sh("mkdir -p \"$(dirname '" + path + "')\"");
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    std::fputs(text.c_str(), f);
    std::fclose(f);
}

// Plain files where tracefs has its own; what the kernel would read back after a write is what
// was written.
std::string make_fake_tracefs(const std::string& dir) {
    const std::string root = dir + "/tracing";
    sh("rm -rf '" + root + "' && mkdir -p '" + root + "/instances' '" + root + "/per_cpu/cpu0' '" + root +
       "/per_cpu/cpu1'");
    for (const char* ev : {"sched_switch", "sched_wakeup"}) {
        put(root + "/events/sched/" + ev + "/enable", "0\n");
        put(root + "/events/sched/" + ev + "/filter", "none\n");
        put(root + "/events/sched/" + ev + "/format", std::string("name: ") + ev + "\nID: 1\nformat:\n");
    }
    put(root + "/events/sched/enable", "0\n");
    const std::pair<const char*, const char*> files[] = {
        {"tracing_on", "1\n"},
        {"set_event", ""},
        {"buffer_size_kb", "1408\n"},
        {"trace_clock", "local\n"},
        {"tracing_cpumask", "3\n"},
        {"current_tracer", "nop\n"},
        {"available_tracers", "function_graph function nop\n"},
        {"set_ftrace_filter", ""},
        {"set_ftrace_notrace", ""},
        {"set_graph_function", ""},
        {"set_ftrace_pid", ""},
        {"max_graph_depth", "0\n"},
        {"set_event_pid", ""},
        {"set_event_notrace_pid", ""},
        {"trace", ""},
        {"options/stacktrace", "0\n"},
        {"options/event-fork", "0\n"},
        {"options/function-fork", "0\n"},
        {"options/sym-addr", "0\n"},
        {"options/print-parent", "1\n"}};
    for (const auto& [f, t] : files) put(root + "/" + f, t);
    return root;
}

std::string env(const std::string& dir, const std::string& root) {
    return "RINGSCOPE_TRACEFS=" + root + " RINGSCOPE_JOURNAL_DIR=" + dir + "/journal ";
}

}  // namespace

TEST(CaptureOptions, StartWritesEachOptionAndResetRestorePutsItBack) {
    const std::string dir = scratch_dir("options_fake");
    const std::string root = make_fake_tracefs(dir);
    const Snapshot before = tracefs_snapshot(root);
    ASSERT_EQ(
        sh(env(dir, root) + kRs +
           " start -p function_graph -l schedule -l 'do_*' -n foo -g bar --max-graph-depth 3"
           " -e sched_switch -f 'prev_pid==1' -f 'next_pid!=0' -e sched -v -e sched_wakeup -T -O sym-addr"
           " -O noprint-parent -P 42,43 -c -b 2000 -C mono -M 1 2> " +
           dir + "/start.err"),
        0)
        << read_file(dir + "/start.err");
    EXPECT_EQ(read_file(root + "/current_tracer"), "function_graph");
    EXPECT_EQ(read_file(root + "/set_ftrace_filter"), "schedule\ndo_*\n");
    EXPECT_EQ(read_file(root + "/set_ftrace_notrace"), "foo\n");
    EXPECT_EQ(read_file(root + "/set_graph_function"), "bar\n");
    EXPECT_EQ(read_file(root + "/max_graph_depth"), "3");
    // -v -e sched_wakeup: the system's other event only.
    EXPECT_EQ(read_file(root + "/events/sched/sched_switch/enable"), "1");
    EXPECT_EQ(read_file(root + "/events/sched/sched_wakeup/enable"), "0\n");
    EXPECT_EQ(read_file(root + "/events/sched/sched_switch/filter"), "(prev_pid==1)&&(next_pid!=0)");
    EXPECT_EQ(read_file(root + "/options/stacktrace"), "1");
    EXPECT_EQ(read_file(root + "/options/sym-addr"), "1");
    EXPECT_EQ(read_file(root + "/options/print-parent"), "0");
    EXPECT_EQ(read_file(root + "/options/event-fork"), "1");
    EXPECT_EQ(read_file(root + "/options/function-fork"), "1");
    EXPECT_EQ(read_file(root + "/set_event_pid"), "42\n43\n");
    EXPECT_EQ(read_file(root + "/set_ftrace_pid"), "42\n43\n");
    EXPECT_EQ(read_file(root + "/buffer_size_kb"), "2000");
    EXPECT_EQ(read_file(root + "/trace_clock"), "mono");
    EXPECT_EQ(read_file(root + "/tracing_cpumask"), "1");
    EXPECT_EQ(read_file(root + "/tracing_on"), "1");
    ASSERT_EQ(sh(env(dir, root) + kRs + " reset --restore 2> " + dir + "/restore.err"), 0)
        << read_file(dir + "/restore.err");
    EXPECT_NE(read_file(dir + "/restore.err").find("restored the tracing state changed by `start`"),
              std::string::npos);
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
    // Nothing left to restore the second time.
    ASSERT_EQ(sh(env(dir, root) + kRs + " reset --restore 2> " + dir + "/restore2.err"), 0);
    EXPECT_NE(read_file(dir + "/restore2.err").find("no tracing state to restore"), std::string::npos);
}

TEST(CaptureOptions, AnErrorHalfwayPutsBackWhatWasSet) {
    const std::string dir = scratch_dir("options_halfway");
    const std::string root = make_fake_tracefs(dir);
    const Snapshot before = tracefs_snapshot(root);
    // The tracer is refused after the clock, buffer and filters were set.
    EXPECT_EQ(
        sh(env(dir, root) + kRs + " start -b 3000 -C mono -l foo -p wakeup_rt -e sched 2> " + dir + "/e.err"),
        1);
    EXPECT_NE(read_file(dir + "/e.err")
                  .find("tracer 'wakeup_rt' is not available (this kernel has: function_graph "
                        "function nop)"),
              std::string::npos)
        << read_file(dir + "/e.err");
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
    EXPECT_EQ(sh(env(dir, root) + kRs + " start -O nosuchoption -e sched 2> " + dir + "/o.err"), 1);
    EXPECT_NE(read_file(dir + "/o.err").find("no trace option 'nosuchoption'"), std::string::npos);
    EXPECT_EQ(sh(env(dir, root) + kRs + " start -e nosuchevent 2> " + dir + "/n.err"), 1);
    EXPECT_NE(read_file(dir + "/n.err").find("no event matches 'nosuchevent'"), std::string::npos);
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
    // -i: an event that matches nothing is skipped.
    EXPECT_EQ(sh(env(dir, root) + kRs + " start -i -e nosuchevent -e sched_wakeup 2> " + dir + "/i.err"), 0)
        << read_file(dir + "/i.err");
    EXPECT_EQ(read_file(root + "/events/sched/sched_wakeup/enable"), "1");
    EXPECT_EQ(sh(env(dir, root) + kRs + " reset --restore 2>/dev/null"), 0);
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
}

TEST(CaptureOptions, CombinationsTraceCmdRefusesAreRefusedWithItsReasons) {
    const std::string dir = scratch_dir("options_refused");
    const std::string root = make_fake_tracefs(dir);
    const Snapshot before = tracefs_snapshot(root);
    const std::pair<const char*, const char*> cases[] = {
        {"record -f 'pid==1' -e sched", "filter must come after event"},
        {"record -R traceon -e sched", "trigger must come after event"},
        {"record -p nop -p function -e sched", "only one plugin allowed"},
        {"record -c -e sched", "-c can only be used with -P or -F"},
        {"record -m 10 -m 20 -e sched", "-m can only be specified once"},
        {"start -m 10 -e sched", "only record take 'm' option"},
        {"start -o x.dat -e sched", "start does not take output"},
        {"stream -o x.dat -e sched", "stream does not take output"},
        {"record -o a.dat -o b.dat -e sched", "only one output file allowed"},
        {"start -e sched -- sleep 1", "Command start does not take any commands"},
        {"record -- true", "no event or plugin was specified... aborting"},
        {"record -v -e sched -- true", "no event or plugin was specified... aborting"},
        {"record -e sched -X", "unrecognised option '-X'"},
        {"record -e sched --bogus", "unrecognised option '--bogus'"},
        {"record -e sched -b", "option -b needs a value"},
        {"record -e sched -B inst -e irq -B inst -e timer", "instance inst given twice"},
        {"stream -e sched -B inst -e irq", "stream prints one buffer"},
    };
    for (const auto& [args, why] : cases) {
        SCOPED_TRACE(args);
        EXPECT_EQ(sh(env(dir, root) + kRs + " " + args + " > " + dir + "/out 2> " + dir + "/err"), 2);
        const std::string err = read_file(dir + "/err");
        EXPECT_NE(err.find(why), std::string::npos) << err;
    }
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(root)), "");
    EXPECT_FALSE(::access((dir + "/journal").c_str(), F_OK) == 0 && !subdirs(dir + "/journal").empty());
}

TEST(CaptureOptions, ResetClearsToTheKernelDefaults) {
    const std::string dir = scratch_dir("options_reset");
    const std::string root = make_fake_tracefs(dir);
    ASSERT_EQ(sh(env(dir, root) + kRs +
                 " start -p function -e sched_switch -f 'prev_pid==1' -T -P 7 -C mono -M 1 "
                 "2>/dev/null"),
              0);
    ASSERT_EQ(sh(env(dir, root) + kRs + " reset -b 1000 2> " + dir + "/reset.err"), 0)
        << read_file(dir + "/reset.err");
    EXPECT_EQ(read_file(root + "/current_tracer"), "nop");
    EXPECT_EQ(read_file(root + "/set_event"), "");
    EXPECT_EQ(read_file(root + "/events/sched/sched_switch/filter"), "0");
    EXPECT_EQ(read_file(root + "/set_event_pid"), "");
    EXPECT_EQ(read_file(root + "/options/stacktrace"), "0");
    EXPECT_EQ(read_file(root + "/trace_clock"), "local");
    EXPECT_EQ(read_file(root + "/tracing_cpumask"), "3");
    EXPECT_EQ(read_file(root + "/buffer_size_kb"), "1000");
    EXPECT_EQ(read_file(root + "/tracing_on"), "1");
    // start's journal is dropped by the reset: nothing to restore over it.
    ASSERT_EQ(sh(env(dir, root) + kRs + " reset --restore 2> " + dir + "/r.err"), 0);
    EXPECT_NE(read_file(dir + "/r.err").find("no tracing state to restore"), std::string::npos);
    EXPECT_EQ(sh(env(dir, root) + kRs + " reset -d 2> " + dir + "/d.err"), 2);
    EXPECT_NE(read_file(dir + "/d.err").find("Can not delete top level buffer"), std::string::npos);
}

TEST(CaptureOptions, TracefsNotMountedIsOneClearError) {
    const std::string dir = scratch_dir("options_nomount");
    for (const char* cmd : {"start -e sched", "stat", "list -t", "show", "stop", "reset"}) {
        SCOPED_TRACE(cmd);
        EXPECT_EQ(sh("RINGSCOPE_TRACEFS=" + dir + "/none RINGSCOPE_JOURNAL_DIR=" + dir + "/j " + kRs + " " +
                     cmd + " > /dev/null 2> " + dir + "/err"),
                  1);
        const std::string err = read_file(dir + "/err");
        EXPECT_NE(err.find("tracefs not found"), std::string::npos) << err;
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    }
}
