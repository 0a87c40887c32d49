// `ringscope export`'s progress line on a terminal: the bytes sent move while a file is sent (it
// used to count only the input of finished files: "0 KB" to the end). Against a stand-in for
// ClickHouse's HTTP interface (fake_clickhouse.py), under `script` for a terminal.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "cli_run.hpp"
#include "tests/support/shell_command.hpp"

namespace ringscope::cli_test {
namespace {

TEST(Export, ProgressCountsTheBytesSentWhileAFileIsSent) {
    if (std::system("command -v python3 >/dev/null 2>&1 && command -v script >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "needs python3 and script (util-linux)";
    const std::string dir =
        std::filesystem::temp_directory_path().string() + "/cli-test-export-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    const std::string start = "python3 '" + source("tests/cli/fake_clickhouse.py") + "' 0.3 > '" + dir +
                              "/port' 2>/dev/null & echo $! > '" + dir + "/pid'";
    ASSERT_EQ(std::system(start.c_str()), 0);
    std::string port;
    for (int i = 0; i < 100 && port.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::ifstream(dir + "/port") >> port;
    }
    int pid = 0;
    std::ifstream(dir + "/pid") >> pid;
    ASSERT_FALSE(port.empty()) << "fake_clickhouse.py did not start";

    // 64437 events in batches of 5000: 13 INSERTs of 0.3 s each, the progress drawn every 0.1 s.
    const std::string file = std::string(RINGSCOPE_TEST_DATA_DIR) + "/kvm-agent/host.dat";
    const std::string cmd = "script -qfec \"" + std::string(RINGSCOPE_BINARY_DIR) +
                            "/ringscope export --to clickhouse://127.0.0.1:" + port +
                            "/db --batch-rows 5000 '" + file + "'\" /dev/null";
    const test::ShellResult r = test::run_shell(cmd);
    if (pid > 0) ::kill(pid, SIGTERM);
    std::filesystem::remove_all(dir);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("64437 events in 13 batches"), std::string::npos) << r.out;
    // Lines drawn before the file is done ("0/1 files") with bytes already sent.
    const std::regex sending(R"(export 0/1 files \([^)]*\), ([0-9.]+) (KB|MB) sent, ([0-9]+) events)");
    int moving = 0;
    for (std::sregex_iterator it(r.out.begin(), r.out.end(), sending), end; it != end; ++it)
        moving += std::stod((*it)[1]) > 0 && std::stoull((*it)[3]) > 0;
    EXPECT_GT(moving, 0) << r.out;
}

}  // namespace
}  // namespace ringscope::cli_test
