// Live-capture faults (issue #10): tracefs missing, not writable, an instance that exists, the disk
// filling up during a recording. Each: one clear error, the tracing state as it was, and whatever
// was written still readable.
#include <sys/mount.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "framework/io/trace_dat_reader.hpp"
#include "state_snapshot.hpp"
#include "tracefs_test_util.hpp"

using namespace ringscope;
using namespace rs_tracefs_test;

namespace {
const std::string kRs = RINGSCOPE_BIN;
}

TEST(CaptureFaults, TracefsMissing) {
    const std::string dir = scratch_dir("fault_missing");
    const int rc = sh("RINGSCOPE_TRACEFS=/nonexistent/tracing " + kRs + " record -e sched -o " + dir +
                      "/x.dat -- true > " + dir + "/log 2>&1");
    EXPECT_EQ(rc, 1);
    const std::string log = read_file(dir + "/log");
    EXPECT_NE(log.find("tracefs not found"), std::string::npos) << log;
    EXPECT_NE(log.find("/nonexistent/tracing"), std::string::npos) << log;
    EXPECT_NE(::access((dir + "/x.dat").c_str(), F_OK), 0);
    EXPECT_EQ(sh("RINGSCOPE_TRACEFS=/nonexistent/tracing " + kRs + " extract -o " + dir + "/y.dat > " + dir +
                 "/log2 2>&1"),
              1);
    EXPECT_NE(read_file(dir + "/log2").find("tracefs not found"), std::string::npos);
}

TEST(CaptureFaults, TracefsNotWritable) {
    REQUIRE_TRACEFS(root);
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to drop to an unprivileged user";
    }
    if (sh("command -v setpriv > /dev/null") != 0) {
        GTEST_SKIP() << "setpriv is not installed";
    }
    TracefsLock lock;
    const std::string dir = scratch_dir("fault_readonly");
    sh("chmod 777 " + dir);
    const std::string inst = unique_name("ro");
    const int rc = sh("setpriv --reuid=65534 --regid=65534 --clear-groups " + kRs + " record -B " + inst +
                      " -e sched -o " + dir + "/x.dat -- true > " + dir + "/log 2>&1");
    EXPECT_EQ(rc, 1);
    const std::string log = read_file(dir + "/log");
    EXPECT_NE(log.find("Permission denied"), std::string::npos) << log;
    EXPECT_NE(log.find(root), std::string::npos) << log;
    EXPECT_FALSE(instance_exists(root, inst));
    // The top buffer: refused before anything changed.
    auto top = tracefs::Instance::top(root);
    ASSERT_TRUE(top);
    const auto before = top->enabled_events();
    const int rc2 = sh("setpriv --reuid=65534 --regid=65534 --clear-groups " + kRs + " record -e sched -o " +
                       dir + "/y.dat -- true > " + dir + "/log2 2>&1");
    EXPECT_EQ(rc2, 1);
    const std::string log2 = read_file(dir + "/log2");
    EXPECT_NE(log2.find(root), std::string::npos) << log2;
    EXPECT_NE(log2.find("Permission denied"), std::string::npos) << log2;
    EXPECT_EQ(*top->enabled_events(), *before);

    // Root, but tracefs mounted read-only (a private mount namespace): the instance and the top
    // buffer are refused with the path and the reason.
    if (sh("command -v unshare > /dev/null") == 0) {
        const std::string inst2 = unique_name("rofs");
        const int rc3 =
            sh("unshare -m sh -c 'mount -o remount,bind,ro " + root + " && " + kRs + " record -B " + inst2 +
               " -e sched -o " + dir + "/z.dat -- true' > " + dir + "/log3 2>&1");
        const std::string log3 = read_file(dir + "/log3");
        if (log3.find("mount:") == std::string::npos) {
            EXPECT_EQ(rc3, 1) << log3;
            EXPECT_NE(log3.find("cannot create instance"), std::string::npos) << log3;
            EXPECT_NE(log3.find("Read-only file system"), std::string::npos) << log3;
            EXPECT_FALSE(instance_exists(root, inst2));
        }
        const int rc4 = sh("unshare -m sh -c 'mount -o remount,bind,ro " + root + " && " + kRs +
                           " record -e sched -o " + dir + "/w.dat -- true' > " + dir + "/log4 2>&1");
        const std::string log4 = read_file(dir + "/log4");
        if (log4.find("mount:") == std::string::npos) {
            EXPECT_EQ(rc4, 1) << log4;
            EXPECT_NE(log4.find("Read-only file system"), std::string::npos) << log4;
            EXPECT_EQ(*top->enabled_events(), *before);
        }
    }
}

// An instance that exists is used as trace-cmd record -B uses it: recorded, every setting put back
// (its own events stay on, ours go off), and never removed.
TEST(CaptureFaults, InstanceThatExistsIsReusedAndPutBack) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    const std::string name = unique_name("taken");
    auto inst = tracefs::Instance::create(name, root);
    ASSERT_TRUE(inst);
    ASSERT_TRUE(inst->enable_events("irq"));
    ASSERT_TRUE(inst->write("buffer_size_kb", "1500"));
    const Snapshot before = tracefs_snapshot(inst->dir());
    const std::string dir = scratch_dir("fault_exists");
    ASSERT_EQ(sh("RINGSCOPE_JOURNAL_DIR=" + dir + "/j " + kRs + " record -B " + name +
                 " -b 2000 -C mono -e sched:sched_process_exit --compression none -o " + dir +
                 "/x.dat -- sh -c 'cat " + inst->dir() + "/buffer_size_kb > " + dir + "/size; echo hi > " +
                 inst->dir() + "/trace_marker' > " + dir + "/log 2>&1"),
              0)
        << read_file(dir + "/log");
    EXPECT_EQ(read_file(dir + "/size"), "2000\n");
    // Someone else's instance: still there, every setting as it was.
    EXPECT_TRUE(instance_exists(root, name));
    EXPECT_EQ(snapshot_diff(before, tracefs_snapshot(inst->dir())), "");
    auto evs = inst->enabled_events();
    ASSERT_TRUE(evs);
    EXPECT_NE(std::find(evs->begin(), evs->end(), "irq:irq_handler_entry"), evs->end());
    EXPECT_EQ(std::find(evs->begin(), evs->end(), "sched:sched_process_exit"), evs->end());
    ASSERT_EQ(sh(kRs + " report " + dir + "/x.dat > " + dir + "/x.txt 2>&1"), 0) << read_file(dir + "/x.txt");
    EXPECT_NE(read_file(dir + "/x.txt").find("tracing_mark_write: hi"), std::string::npos);
    EXPECT_TRUE(inst->destroy());
}

TEST(CaptureFaults, DiskFullWhileRecording) {
    REQUIRE_TRACEFS(root);
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to mount a small tmpfs";
    }
    TracefsLock lock;
    const std::string dir = scratch_dir("fault_diskfull");
    const std::string mnt = dir + "/small";
    sh("mkdir -p " + mnt);
    // Room for the metadata reserve (kallsyms, formats, and the kernel's BTF: 5.5 MB here, in the
    // head and in the reserve with --compression none) and about 3 MB of events. The writer offers
    // ~80 MB, so the disk fills even when a loaded machine starves the readers and most are lost.
    if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=24m") != 0) {
        GTEST_SKIP() << "cannot mount a tmpfs";
    }
    const std::string inst = unique_name("full");
    const int rc = sh(kRs + " record -B " + inst + " -b 4096 -e sched:sched_process_exit -o " + mnt +
                      "/x.dat --compression none -- " MARKER_WRITER_BIN " " + root + "/instances/" + inst +
                      "/trace_marker 2000000 > " + dir + "/log 2>&1");
    const std::string log = read_file(dir + "/log");
    EXPECT_EQ(rc, 1) << log;
    EXPECT_NE(log.find("No space left on device"), std::string::npos) << log;
    EXPECT_NE(log.find("holds the data captured up to then"), std::string::npos) << log;
    EXPECT_FALSE(instance_exists(root, inst));
    EXPECT_NE(::access((mnt + "/x.dat.cpu0").c_str(), F_OK), 0) << "scratch files left behind";
    EXPECT_NE(::access((mnt + "/x.dat.reserve").c_str(), F_OK), 0);
    auto rd = io::TraceDatReader::open(mnt + "/x.dat");
    EXPECT_TRUE(rd) << rd.error().to_string();
    EXPECT_EQ(sh(kRs + " report -N " + mnt + "/x.dat > " + dir + "/x.txt 2> " + dir + "/x.err"), 0)
        << read_file(dir + "/x.err");
    const std::string text = read_file(dir + "/x.txt");
    EXPECT_NE(text.find("tracing_mark_write: n=0\n"), std::string::npos);
    EXPECT_EQ(text.find("tracing_mark_write: n=1999999\n"), std::string::npos);
    if (sh("trace-cmd -h > /dev/null 2>&1") != 127) {
        EXPECT_EQ(sh("trace-cmd report -N " + mnt + "/x.dat > " + dir + "/x.tc 2>/dev/null"), 0);
        EXPECT_EQ(read_file(dir + "/x.tc"), text);
    }
    ::umount2(mnt.c_str(), MNT_DETACH);
}
