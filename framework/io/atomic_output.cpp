#include "framework/io/atomic_output.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ringscope::io {
namespace {

// Temporary files the signal handler removes: fixed slots of C strings, so the handler neither
// allocates nor locks. A path is published in a slot only once it is complete and is withdrawn
// before it is freed.
constexpr size_t kSlots = 64;
std::array<std::atomic<const char*>, kSlots> g_temp_files{};
std::once_flag g_handlers_once;

extern "C" void remove_temp_files_and_die(int sig) {
    for (auto& slot : g_temp_files)
        if (const char* p = slot.load(std::memory_order_acquire)) ::unlink(p);
    // Die of the signal as the default action would (exit status, core dump policy).
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void install_handlers() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) != 0) continue;
        // Leave alone a signal the process ignores (nohup) or handles itself.
        if (old.sa_handler != SIG_DFL) continue;
        struct sigaction sa {};
        sa.sa_handler = remove_temp_files_and_die;
        sigemptyset(&sa.sa_mask);
        for (int other : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, other);
        ::sigaction(sig, &sa, nullptr);
    }
}

// Six characters from [A-Za-z0-9], as mkstemp's; unpredictable enough that a name taken is rare.
std::string random_suffix() {
    static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    uint64_t bits = 0;
    if (::getrandom(&bits, sizeof bits, 0) != sizeof bits)
        bits = static_cast<uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ull ^
               static_cast<uint64_t>(::time(nullptr));
    std::string out(6, 'X');
    for (char& c : out) {
        c = kChars[bits % 62];
        bits /= 62;
    }
    return out;
}

int publish(const char* path) {
    std::call_once(g_handlers_once, install_handlers);
    for (size_t i = 0; i < kSlots; ++i) {
        const char* expected = nullptr;
        if (g_temp_files[i].compare_exchange_strong(expected, path, std::memory_order_acq_rel))
            return static_cast<int>(i);
    }
    return -1;  // more than kSlots outputs at once: still removed by the destructor
}

void withdraw(int& slot) {
    if (slot >= 0) g_temp_files[static_cast<size_t>(slot)].store(nullptr, std::memory_order_release);
    slot = -1;
}

}  // namespace

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {}

AtomicOutput::~AtomicOutput() {
    if (file_) std::fclose(file_);
    if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
    withdraw(slot_);
}

Status AtomicOutput::create() {
    if (!temp_.empty()) return {};
    std::filesystem::path p(path_);
    // Same folder, so the rename stays on one file system and is atomic; hidden.
    const std::string base = (p.parent_path() / ("." + p.filename().string() + ".tmp.")).string();
    // The handler knows the name before the file exists: a signal taken by another thread (the
    // mask below is this thread's only) then still removes it.
    std::call_once(g_handlers_once, install_handlers);
    sigset_t block, old;
    sigemptyset(&block);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
    ::pthread_sigmask(SIG_BLOCK, &block, &old);
    int fd = -1, err = 0;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        temp_ = base + random_suffix();
        slot_ = publish(temp_.c_str());
        // 0666 less the umask, as a plain create would make it.
        fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        err = errno;
        if (fd < 0) {
            withdraw(slot_);
            temp_.clear();
            if (err != EEXIST) break;
        }
    }
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (fd < 0)
        return Error(Errc::io, std::string("cannot create a temporary file beside it: ") + std::strerror(err))
            .in_file(path_);
    ::close(fd);
    return {};
}

Expected<std::FILE*> AtomicOutput::open() {
    if (Status s = create(); !s) return s.error();
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) return Error(Errc::io, temp_ + ": " + std::strerror(errno));
    return file_;
}

Status AtomicOutput::close() {
    if (!file_) return {};
    const bool bad = std::ferror(file_) != 0;
    const int rc = std::fclose(file_);
    file_ = nullptr;
    if (bad || rc != 0) return Error(Errc::io, path_ + ": write failed: " + std::strerror(errno));
    return {};
}

Status AtomicOutput::commit() {
    if (Status s = close(); !s) return s;
    if (temp_.empty())
        if (Status s = create(); !s) return s;
    // Checked when the command started too; again here, for what appeared meanwhile.
    struct stat st {};
    if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        return Error(Errc::invalid_argument, path_ + ": not a regular file, not replaced");
    if (std::rename(temp_.c_str(), path_.c_str()) != 0)
        return Error(Errc::io, path_ + ": rename from " + temp_ + " failed: " + std::strerror(errno));
    committed_ = true;
    withdraw(slot_);
    return {};
}

Status write_file_atomically(const std::string& path, std::string_view text) {
    AtomicOutput out(path);
    auto f = out.open();
    if (!f) return f.error();
    std::fwrite(text.data(), 1, text.size(), *f);
    return out.commit();
}

}  // namespace ringscope::io
