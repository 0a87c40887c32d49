// Replays the committed inputs that made a libFuzzer target crash or hang
// (tests/robustness/regressions/TARGET/*) through that target's LLVMFuzzerTestOneInput, each in a
// forked child with a time bound, so that a hang fails the test instead of stalling it. Built with
// the target's source by any compiler; under ASan + UBSan in CI's sanitizer pass. A child's peak
// RSS is bounded too: libFuzzer stops at 2 GiB, so an input that made it run out of memory fails here.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

namespace {

TEST(FuzzReplay, CommittedInputsRunCleanly) {
    const fs::path dir =
        fs::path(RINGSCOPE_SOURCE_DIR) / "tests" / "robustness" / "regressions" / RINGSCOPE_FUZZ_TARGET;
    std::vector<fs::path> inputs;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file()) inputs.push_back(e.path());
    std::sort(inputs.begin(), inputs.end());
    ASSERT_FALSE(inputs.empty()) << dir;
    for (const fs::path& p : inputs) {
        std::ifstream in(p, std::ios::binary);
        const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                         std::istreambuf_iterator<char>()};
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
            _exit(0);
        }
        // Each input takes milliseconds when the code is right; 60 s leaves room for slow sanitizers.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        int status = 0;
        bool hung = false;
        struct rusage usage {};
        while (wait4(pid, &status, WNOHANG, &usage) != pid) {
            if (std::chrono::steady_clock::now() > deadline) {
                kill(pid, SIGKILL);
                wait4(pid, &status, 0, &usage);
                hung = true;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        EXPECT_FALSE(hung) << p.filename() << ": hang (killed after 60 s)";
        if (!hung) {
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
                << p.filename() << ": " << (WIFSIGNALED(status) ? "killed by a signal" : "failed exit")
                << " (status " << status << ")";
            constexpr long kMaxRssKiB = 1024 * 1024;
            EXPECT_LT(usage.ru_maxrss, kMaxRssKiB)
                << p.filename() << ": peak RSS " << usage.ru_maxrss << " KiB";
        }
    }
}

}  // namespace
