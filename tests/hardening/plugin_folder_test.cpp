// Plugin folders are hostile too (issue #25): a *.so that is a symlink loop, a FIFO or a folder is
// skipped and named; a plugin that crashes, hangs or exits while it registers is named and skipped
// instead of ending the command; verdicts are cached by file identity.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "hostile_common.hpp"

namespace fs = std::filesystem;

namespace {

using namespace ringscope::test;

// `ringscope ARGS` with a private verdict cache, bounded in time; stdout and stderr together.
ShellResult with_cache(const std::string& cache, const std::string& args) {
    return run_shell("RINGSCOPE_PLUGIN_CACHE=" + sh_quote(cache) +
                     " RINGSCOPE_PLUGIN_PROBE_TIMEOUT_MS=1500 timeout 60 " + sh_quote(cli()) + " " + args +
                     " 2>&1");
}

TEST(PluginFolder, EntriesThatAreNotRegularFilesAreSkippedAndNamed) {
    TempDir dir;
    const std::string plugins = dir / "plugins";
    fs::create_directories(plugins + "/folder.so");
    fs::create_symlink("loop.so", plugins + "/loop.so");
    fs::create_symlink("nowhere", plugins + "/dangling.so");
    ASSERT_EQ(::mkfifo((plugins + "/fifo.so").c_str(), 0600), 0);
    for (const char* args : {"--help", "plugins"}) {
        const ShellResult r = with_cache(dir / "cache", "--plugin-dir " + sh_quote(plugins) + " " + args);
        EXPECT_EQ(r.status, 0) << args << ": " << r.out;
        for (const char* name : {"folder.so: skipped, a folder", "loop.so: skipped,", "dangling.so: skipped",
                                 "fifo.so: skipped, a FIFO"})
            EXPECT_NE(r.out.find(name), std::string::npos) << name << "\n" << r.out;
        EXPECT_NE(r.out.find("sched"), std::string::npos) << "the good plugins still load\n" << r.out;
    }
}

TEST(PluginFolder, APluginThatCrashesHangsOrExitsIsSkipped) {
    TempDir dir;
    for (const char* name : {"crashing", "hanging", "exiting"}) {
        const std::string folder = std::string(RINGSCOPE_MISBEHAVING_PLUGINS) + "/" + name;
        const ShellResult r = with_cache(dir / "cache", "--plugin-dir " + sh_quote(folder) + " plugins");
        EXPECT_EQ(r.status, 0) << name << ": " << r.out;
        EXPECT_NE(r.out.find("sched "), std::string::npos) << name << ": the other plugins load\n" << r.out;
        // The signal is SIGSEGV, or SIGABRT where AddressSanitizer's handler catches it first.
        const std::string why = std::string(name) == "crashing"  ? "crashed while loading (signal "
                                : std::string(name) == "hanging" ? "did not finish loading within 1500 ms"
                                                                 : "ended the process while loading";
        EXPECT_NE(r.out.find(std::string(name) + ".so: " + why), std::string::npos) << r.out;
    }
}

TEST(PluginFolder, VerdictsAreCachedByFileIdentity) {
    TempDir dir;
    const std::string cache = dir / "cache";
    const std::string folder = dir / "crashing";
    fs::create_directories(folder);
    fs::copy_file(std::string(RINGSCOPE_MISBEHAVING_PLUGINS) + "/crashing/crashing.so",
                  folder + "/crashing.so");
    ShellResult r = with_cache(cache, "--plugin-dir " + sh_quote(folder) + " plugins");
    ASSERT_EQ(r.status, 0) << r.out;
    const std::string first = read_file(cache);
    EXPECT_NE(first.find(" crashed while loading"), std::string::npos) << first;
    EXPECT_NE(first.find(" ok"), std::string::npos) << "the good plugins' verdicts\n" << first;
    // From the cache: the same answer, the file unchanged.
    r = with_cache(cache, "--plugin-dir " + sh_quote(folder) + " plugins");
    EXPECT_NE(r.out.find("crashing.so: crashed while loading"), std::string::npos) << r.out;
    EXPECT_EQ(read_file(cache), first);
    // A changed file is probed again.
    fs::last_write_time(folder + "/crashing.so",
                        fs::last_write_time(folder + "/crashing.so") - std::chrono::hours(1));
    r = with_cache(cache, "--plugin-dir " + sh_quote(folder) + " plugins");
    EXPECT_NE(read_file(cache), first);
}

TEST(PluginFolder, TheCacheDoesNotGrowWithoutBound) {
    // Every rebuilt plugin is a new identity: past 256 lines only the files met are kept.
    TempDir dir;
    const std::string cache = dir / "cache";
    std::string lines;
    for (int i = 0; i < 300; ++i) lines += "1 " + std::to_string(i) + " 2 3 ok\n";
    write_text(cache, lines);
    const ShellResult r = with_cache(
        cache,
        "--plugin-dir " + sh_quote(std::string(RINGSCOPE_MISBEHAVING_PLUGINS) + "/crashing") + " plugins");
    ASSERT_EQ(r.status, 0) << r.out;
    const std::string after = read_file(cache);
    const auto n = std::count(after.begin(), after.end(), '\n');
    EXPECT_GT(n, 0);
    EXPECT_LT(n, 40) << after.substr(0, 400);
}

}  // namespace
