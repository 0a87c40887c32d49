// StateJournal (issue #26): each change journaled with the value it replaced, put back in reverse
// order; a journal whose process died (SIGKILL) is replayed by recover_journals(), one whose
// process lives is left alone; torn and bad journals.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "framework/capture/state_journal.hpp"
#include "state_snapshot.hpp"
#include "tracefs_test_util.hpp"

using namespace ringscope;
using namespace rs_tracefs_test;

namespace {

void put(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    std::fputs(text.c_str(), f);
    std::fclose(f);
}

struct JournalDir {
    explicit JournalDir(const std::string& name) : dir(scratch_dir(name)) {
        ::setenv("RINGSCOPE_JOURNAL_DIR", (dir + "/journal").c_str(), 1);
        put(dir + "/trace_clock", "[local] global mono\n");
        put(dir + "/size", "7 (expanded: 1408)\n");
        put(dir + "/set_event", "sched:sched_switch\nirq:irq_handler_entry\n");
        put(dir + "/filter", "none\n");
        sh("mkdir -p " + dir + "/instances");
    }
    ~JournalDir() { ::unsetenv("RINGSCOPE_JOURNAL_DIR"); }
    std::vector<std::string> journals() const {
        std::vector<std::string> out;
        if (DIR* d = ::opendir((dir + "/journal").c_str())) {
            while (dirent* e = ::readdir(d))
                if (e->d_name[0] != '.') out.emplace_back(e->d_name);
            ::closedir(d);
        }
        return out;
    }
    std::string dir;
};

void change_everything(capture::StateJournal& j, const std::string& dir) {
    ASSERT_TRUE(j.set(dir + "/trace_clock", "mono", capture::RestoreKind::value));
    ASSERT_TRUE(j.set(dir + "/trace_clock", "global", capture::RestoreKind::value));  // saved once
    ASSERT_TRUE(j.set(dir + "/size", "4096", capture::RestoreKind::value));
    ASSERT_TRUE(j.set(dir + "/set_event", "", capture::RestoreKind::lines));
    ASSERT_TRUE(j.append(dir + "/set_event", "sched:sched_wakeup\n", capture::RestoreKind::lines));
    ASSERT_TRUE(j.set(dir + "/filter", "pid==1", capture::RestoreKind::filter));
    ASSERT_TRUE(j.make_instance(dir + "/instances/mine"));
}

void expect_restored(const std::string& dir) {
    EXPECT_EQ(read_file(dir + "/trace_clock"), "local");
    EXPECT_EQ(read_file(dir + "/size"), "1408");  // not 7: the expanded size
    EXPECT_EQ(read_file(dir + "/set_event"), "sched:sched_switch\nirq:irq_handler_entry\n");
    EXPECT_EQ(read_file(dir + "/filter"), "0");  // "none" is cleared by writing 0
    EXPECT_NE(::access((dir + "/instances/mine").c_str(), F_OK), 0);
}

}  // namespace

TEST(StateJournal, RestoresEveryKindNewestFirstAndRemovesItself) {
    JournalDir d("journal_restore");
    {
        auto j = capture::StateJournal::create();
        ASSERT_TRUE(j);
        change_everything(**j, d.dir);
        EXPECT_EQ(read_file(d.dir + "/trace_clock"), "global");
        EXPECT_EQ(read_file(d.dir + "/set_event"), "sched:sched_wakeup\n");
        ASSERT_EQ(d.journals().size(), 1u);
        EXPECT_EQ((*j)->size(), 5u);
        // The destructor restores what was not restored explicitly.
    }
    expect_restored(d.dir);
    EXPECT_TRUE(d.journals().empty());
}

TEST(StateJournal, AJournalOfAKilledProcessIsReplayedByTheNextCommand) {
    JournalDir d("journal_killed");
    const pid_t pid = ::fork();
    if (pid == 0) {
        auto j = capture::StateJournal::create();
        if (!j) ::_exit(1);
        change_everything(**j, d.dir);
        ::raise(SIGKILL);
        ::_exit(2);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
    EXPECT_EQ(read_file(d.dir + "/trace_clock"), "global");
    ASSERT_EQ(d.journals().size(), 1u);
    char* text = nullptr;
    size_t len = 0;
    FILE* log = ::open_memstream(&text, &len);
    auto n = capture::recover_journals(log, false);
    std::fclose(log);
    const std::string said(text, len);
    std::free(text);
    ASSERT_TRUE(n) << n.error().to_string();
    EXPECT_EQ(*n, 1);
    EXPECT_NE(said.find("restored the tracing state left behind by ringscope pid " + std::to_string(pid)),
              std::string::npos)
        << said;
    expect_restored(d.dir);
    EXPECT_TRUE(d.journals().empty());
}

TEST(StateJournal, AJournalOfALiveProcessIsLeftAlone) {
    JournalDir d("journal_alive");
    int go[2], ready[2];
    ASSERT_EQ(::pipe(go), 0);
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
        auto j = capture::StateJournal::create();
        if (!j || !(*j)->set(d.dir + "/trace_clock", "mono", capture::RestoreKind::value)) ::_exit(1);
        (void)!::write(ready[1], "r", 1);
        char c;
        (void)!::read(go[0], &c, 1);
        ::_exit((*j)->restore() ? 0 : 3);
    }
    char c;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    auto n = capture::recover_journals(nullptr, true);
    ASSERT_TRUE(n);
    EXPECT_EQ(*n, 0);
    EXPECT_EQ(read_file(d.dir + "/trace_clock"), "mono");
    ASSERT_EQ(::write(go[1], "g", 1), 1);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_EQ(read_file(d.dir + "/trace_clock"), "local");
}

TEST(StateJournal, TornAndBadJournals) {
    JournalDir d("journal_bad");
    sh("mkdir -p " + d.dir + "/journal");
    // A kill while the entry was written: the last line has no newline, its change was not made.
    put(d.dir + "/journal/journal.00000000000000000001.99999",
        "ringscope-journal 1\nv\t" + d.dir + "/trace_clock\tlocal\nv\t" + d.dir + "/size\t12");
    auto e = capture::read_journal(d.dir + "/journal/journal.00000000000000000001.99999");
    ASSERT_TRUE(e) << e.error().to_string();
    ASSERT_EQ(e->size(), 1u);
    EXPECT_EQ((*e)[0].value, "local");
    put(d.dir + "/journal/journal.00000000000000000002.99998", "ringscope-journal 1\nv\trelative\tx\n");
    auto bad = capture::read_journal(d.dir + "/journal/journal.00000000000000000002.99998");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().line(), 2);
    EXPECT_NE(bad.error().to_string().find("journal.00000000000000000002.99998:2"), std::string::npos)
        << bad.error().to_string();
    auto n = capture::recover_journals(nullptr, false);
    EXPECT_FALSE(n);  // the bad one is reported and kept for another try
    EXPECT_EQ(read_file(d.dir + "/trace_clock"), "local");
    EXPECT_EQ(d.journals().size(), 1u);
}

TEST(StateJournal, AnInstanceThatExistedIsNeverRemoved) {
    JournalDir d("journal_instance");
    sh("mkdir -p " + d.dir + "/instances/theirs");
    {
        auto j = capture::StateJournal::create();
        ASSERT_TRUE(j);
        Status st = (*j)->make_instance(d.dir + "/instances/theirs");
        ASSERT_FALSE(st);
        EXPECT_EQ(st.error().code(), Errc::invalid_argument);
        EXPECT_EQ((*j)->size(), 0u);
    }
    EXPECT_EQ(::access((d.dir + "/instances/theirs").c_str(), F_OK), 0);
}
