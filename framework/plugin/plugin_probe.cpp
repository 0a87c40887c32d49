#include "framework/plugin/plugin_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>

#include "framework/io/atomic_output.hpp"

namespace fs = std::filesystem;

namespace ringscope::plugin {
namespace {

// How long a plugin may take to load in the probe; RINGSCOPE_PLUGIN_PROBE_TIMEOUT_MS for tests.
int probe_timeout_ms() {
    if (const char* e = std::getenv("RINGSCOPE_PLUGIN_PROBE_TIMEOUT_MS")) {
        const long ms = std::strtol(e, nullptr, 10);
        if (ms > 0 && ms <= 600000) return static_cast<int>(ms);
    }
    return 10000;
}

using Identity = std::tuple<uint64_t, uint64_t, uint64_t, int64_t>;  // dev, inode, size, mtime ns

std::string cache_path() {
    if (const char* p = std::getenv("RINGSCOPE_PLUGIN_CACHE")) return p;  // "" turns the cache off
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
        return std::string(x) + "/ringscope/plugin-verdicts";
    if (const char* h = std::getenv("HOME"); h && *h == '/')
        return std::string(h) + "/.cache/ringscope/plugin-verdicts";
    return {};
}

// "DEV INODE SIZE MTIME_NS VERDICT" per line; VERDICT "ok" or the reason to skip.
class VerdictCache {
  public:
    VerdictCache() : path_(cache_path()) {
        std::ifstream in(path_);
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream l(line);
            Identity id;
            std::string verdict;
            if (l >> std::get<0>(id) >> std::get<1>(id) >> std::get<2>(id) >> std::get<3>(id) &&
                std::getline(l >> std::ws, verdict))
                verdicts_[id] = verdict;
        }
    }
    const std::string* find(const Identity& id) {
        auto it = verdicts_.find(id);
        if (it == verdicts_.end()) return nullptr;
        used_.insert(id);
        return &it->second;
    }
    void store(const Identity& id, const std::string& verdict) {
        verdicts_[id] = verdict;
        used_.insert(id);
        // Every rebuilt plugin adds a line: past kMaxEntries keep only the files this process met.
        if (verdicts_.size() > kMaxEntries)
            std::erase_if(verdicts_, [&](const auto& v) { return !used_.count(v.first); });
        if (path_.empty()) return;
        std::error_code ec;
        fs::create_directories(fs::path(path_).parent_path(), ec);
        std::string text;
        for (const auto& [k, v] : verdicts_)
            text += std::to_string(std::get<0>(k)) + " " + std::to_string(std::get<1>(k)) + " " +
                    std::to_string(std::get<2>(k)) + " " + std::to_string(std::get<3>(k)) + " " + v + "\n";
        (void)io::write_file_atomically(path_, text);  // a cache: not written, probed again next time
    }

  private:
    std::string path_;
    static constexpr size_t kMaxEntries = 256;
    std::map<Identity, std::string> verdicts_;
    std::set<Identity> used_;
};

// Runs load_in_child in a forked child; "ok" or why the plugin must be skipped.
std::string probe_in_child(const std::function<bool()>& load_in_child) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return "ok";  // cannot probe: load as before
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return "ok";
    }
    if (pid == 0) {
        ::close(fds[0]);
        // Nothing the plugin prints while loading reaches the command's output.
        if (int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) ::dup2(null, STDOUT_FILENO);
        const bool usable = load_in_child();
        const char done = usable ? 'y' : 'n';
        (void)!::write(fds[1], &done, 1);
        ::_exit(0);  // no destructors or atexit handlers of the parent's state
    }
    ::close(fds[1]);
    // The child's answer is the byte it writes: a plugin that calls exit() while loading ends the
    // child without one, whatever the exit status.
    pollfd p{fds[0], POLLIN, 0};
    const int timeout_ms = probe_timeout_ms();
    int ready;
    do ready = ::poll(&p, 1, timeout_ms);
    while (ready < 0 && errno == EINTR);
    char answer = 0;
    if (ready > 0) {
        ssize_t n;
        do n = ::read(fds[0], &answer, 1);
        while (n < 0 && errno == EINTR);
        if (n != 1) answer = 0;
    }
    ::close(fds[0]);
    if (ready == 0) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (ready == 0) return "did not finish loading within " + std::to_string(timeout_ms) + " ms";
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        return std::string("crashed while loading (signal ") + std::to_string(sig) + ", " + ::strsignal(sig) +
               ")";
    }
    if (answer == 'y' || answer == 'n') return "ok";
    return "ended the process while loading (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
}

}  // namespace

ProbeResult probe_plugin(const std::string& path, const std::function<bool()>& load_in_child) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return {};  // the load reports it
    const Identity id{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                      static_cast<uint64_t>(st.st_size),
                      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
    static std::mutex mutex;
    static VerdictCache* cache = nullptr;
    std::lock_guard lock(mutex);
    if (!cache) cache = new VerdictCache();  // kept to the end: probes may come from any host
    const std::string* known = cache->find(id);
    const std::string verdict = known ? *known : probe_in_child(load_in_child);
    // A timeout may be the machine's load, not the plugin: probed again next time.
    if (!known && verdict.rfind("did not finish", 0) != 0) cache->store(id, verdict);
    if (verdict == "ok") return {};
    return {false, verdict + ", skipped"};
}

}  // namespace ringscope::plugin
