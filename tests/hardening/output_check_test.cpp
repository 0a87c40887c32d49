// Outputs never destroy (issue #25): an output that is an input, the run file, not a regular file or
// named twice is refused before any work (exit 2, the files untouched); outputs appear only whole,
// and an interrupted run leaves no temporary file behind.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <ringscope/output_check.hpp>

#include "hostile_common.hpp"

namespace fs = std::filesystem;

namespace {

using namespace ringscope::test;

std::string trace_copy(const TempDir& dir, const std::string& name = "in.dat") {
    const std::string p = dir / name;
    fs::copy_file(std::string(RINGSCOPE_TEST_DATA_DIR) + "/traces/basic.dat", p);
    return p;
}

// Runs `ringscope run` on a YAML written in DIR: exit code and stderr.
ShellResult run_yaml(const TempDir& dir, const std::string& yaml_text) {
    write_text(dir / "run.yaml", yaml_text);
    return run_shell("cd " + sh_quote(dir.path()) + " && " + sh_quote(cli()) + " run --quiet run.yaml 2>&1");
}

std::string yaml(const std::string& input, const std::string& outputs) {
    return "inputs: [" + input + "]\nplugins: {load: [sched]}\nanalyses:\n  sched.runtime: {}\noutputs:\n" +
           outputs;
}

TEST(OutputCheck, TheFunctionRefusesWhatWouldDestroy) {
    TempDir dir;
    const std::string in = trace_copy(dir);
    EXPECT_TRUE(ringscope::check_outputs({dir / "new.json", "-", ""}, {in}));
    EXPECT_FALSE(ringscope::check_outputs({in}, {in}));
    EXPECT_FALSE(ringscope::check_outputs({dir.path() + "/./in.dat"}, {in}));
    fs::create_symlink(in, dir / "link.dat");
    EXPECT_FALSE(ringscope::check_outputs({dir / "link.dat"}, {in}));
    EXPECT_FALSE(ringscope::check_outputs({dir / "a.json", dir.path() + "//a.json"}, {}));
    EXPECT_FALSE(ringscope::check_outputs({"/dev/null"}, {}));
    EXPECT_FALSE(ringscope::check_outputs({dir.path()}, {}));
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    const auto s = ringscope::check_outputs({dir / "fifo"}, {});
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message().find("is a FIFO"), std::string::npos) << s.error().message();
}

TEST(OutputCheck, RunRefusesAnOutputThatIsAnInputOrItself) {
    TempDir dir;
    const std::string in = trace_copy(dir);
    const std::string before = read_file(in);
    ShellResult r = run_yaml(dir, yaml(in, "  json: in.dat\n"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("outputs.json: output 'in.dat' is also the input"), std::string::npos) << r.out;
    EXPECT_EQ(read_file(in), before);

    const std::string yaml_text = yaml(in, "  text: run.yaml\n");
    r = run_yaml(dir, yaml_text);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(read_file(dir / "run.yaml"), yaml_text);
}

TEST(OutputCheck, RunRefusesNonRegularFilesAndTwiceNamedOutputs) {
    TempDir dir;
    const std::string in = trace_copy(dir);
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    ShellResult r = run_yaml(dir, yaml(in, "  csv: fifo\n"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("is a FIFO, not a regular file"), std::string::npos) << r.out;
    struct stat st {};
    ASSERT_EQ(::stat((dir / "fifo").c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";

    r = run_yaml(dir, yaml(in, "  text: same.txt\n  csv: ./same.txt\n"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("outputs.csv: output './same.txt' is the same file as 'same.txt'"),
              std::string::npos)
        << r.out;
    EXPECT_FALSE(fs::exists(dir / "same.txt"));

    r = run_yaml(dir, yaml(in, "  text: ok.txt\n  json: ok.json\n"));
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(fs::is_regular_file(dir / "ok.txt"));
}

TEST(OutputCheck, PartialsNeverOverwriteTheirInputs) {
    TempDir dir;
    const std::string in = trace_copy(dir);
    const std::string before = read_file(in);
    for (const char* cmd : {"sched latency", "sched runtime", "kvm exits"}) {
        const ShellResult r = run_shell(sh_quote(cli()) + " " + cmd + " --partial " + sh_quote(in) + " " +
                                        sh_quote(in) + " 2>&1");
        EXPECT_EQ(r.status, 2) << cmd << ": " << r.out;
        EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << cmd << ": " << r.out;
        EXPECT_EQ(read_file(in), before) << cmd;
    }
    const std::string part = dir / "p.json";
    ASSERT_EQ(
        run_shell(sh_quote(cli()) + " sched runtime --partial " + sh_quote(part) + " " + sh_quote(in)).status,
        0);
    const std::string part_before = read_file(part);
    const ShellResult m =
        run_shell(sh_quote(cli()) + " merge --partial " + sh_quote(part) + " " + sh_quote(part) + " 2>&1");
    EXPECT_EQ(m.status, 2) << m.out;
    EXPECT_EQ(read_file(part), part_before);
}

TEST(OutputCheck, CaptureRefusesADeviceBeforeTouchingTracefs) {
    TempDir dir;
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    for (const char* cmd : {"extract -o", "record -e sched:sched_switch -o"}) {
        const ShellResult r = run_shell("flock /tmp/tracefs.lock " + sh_quote(cli()) + " " + cmd + " " +
                                        sh_quote(dir / "fifo") + " 2>&1 </dev/null");
        EXPECT_EQ(r.status, 2) << cmd << ": " << r.out;
        EXPECT_NE(r.out.find("is a FIFO"), std::string::npos) << r.out;
    }
}

// No ".NAME.tmp.*" file left in DIR.
std::vector<std::string> temporaries(const std::string& dir) {
    std::vector<std::string> t;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp.") != std::string::npos) t.push_back(e.path().string());
    return t;
}

TEST(OutputCheck, AnInterruptedRunLeavesNoTemporaryFile) {
    TempDir dir;
    // Several inputs make the event pass long enough to be interrupted while the SQLite and
    // Perfetto outputs are open under their temporary names.
    std::string inputs;
    for (int i = 0; i < 6; ++i)
        inputs += (i ? ", " : "") + trace_copy(dir, "in" + std::to_string(i) + ".dat");
    write_text(dir / "run.yaml", "inputs: [" + inputs +
                                     "]\nplugins: {load: [sched]}\nanalyses:\n  sched.runtime: {}\n"
                                     "outputs:\n  sqlite: out.sqlite\n  perfetto: out.json\n");
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            if (::chdir(dir.path().c_str()) != 0) ::_exit(127);
            ::execl(cli().c_str(), "ringscope", "run", "--quiet", "run.yaml", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        bool seen = false;
        for (int i = 0; i < 20000 && !seen; ++i) {
            seen = temporaries(dir.path()).size() >= 2;
            if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        ::kill(pid, sig);
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (!seen || !WIFSIGNALED(status)) {
            fs::remove(dir / "out.sqlite");
            fs::remove(dir / "out.json");
            GTEST_SKIP() << "the run ended before it could be interrupted";
        }
        EXPECT_EQ(WTERMSIG(status), sig);
        EXPECT_TRUE(temporaries(dir.path()).empty())
            << "signal " << sig << ": " << temporaries(dir.path()).front();
        EXPECT_FALSE(fs::exists(dir / "out.sqlite"));
    }
}

}  // namespace
