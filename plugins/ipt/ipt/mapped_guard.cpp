#include "ipt/mapped_guard.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

namespace ringscope::ipt {
namespace {

struct Slot {
    std::atomic<bool> used{false};
    // Published last (release), cleared first: the handler reads the rest only when it is set.
    std::atomic<uintptr_t> base{0};
    size_t length = 0;
    uint64_t file_offset = 0;
    char path[512] = {};
};

Slot slots[MappedGuard::kSlots];
struct sigaction previous {};

// Appends text to buf[at, cap); the new end.
size_t put(char* buf, size_t cap, size_t at, const char* text) {
    while (*text && at < cap) buf[at++] = *text++;
    return at;
}

size_t put_number(char* buf, size_t cap, size_t at, uint64_t v, unsigned base) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    while (n > 0 && at < cap) buf[at++] = digits[--n];
    return at;
}

// The line, as Error::to_string writes a file and an offset; async-signal-safe.
size_t format_line(char* buf, size_t cap, const char* path, uint64_t offset) {
    size_t at = put(buf, cap, 0, "ringscope: ");
    at = put(buf, cap, at, path);
    at = put(buf, cap, at, ": offset ");
    at = put_number(buf, cap, at, offset, 10);
    at = put(buf, cap, at, " (0x");
    at = put_number(buf, cap, at, offset, 16);
    return put(buf, cap, at, "): the file was cut short while it was read");
}

void on_sigbus(int sig, siginfo_t* info, void* context) {
    const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
    for (const Slot& s : slots) {
        const uintptr_t base = s.base.load(std::memory_order_acquire);
        if (!base || addr < base || addr - base >= s.length) continue;
        char line[sizeof s.path + 128];
        size_t n = format_line(line, sizeof line - 1, s.path, s.file_offset + (addr - base));
        line[n++] = '\n';
        [[maybe_unused]] ssize_t w = ::write(STDERR_FILENO, line, n);
        ::_exit(1);
    }
    // Not a trace file's page: as without the guard.
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
        previous.sa_sigaction(sig, info, context);
        return;
    }
    if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler != SIG_DFL &&
        previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    // The default action once the faulting access runs again.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(SIGBUS, &dfl, nullptr);
}

void install() {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &previous);
}

}  // namespace

int MappedGuard::add(const void* base, size_t length, uint64_t file_offset, const std::string& path) {
    static std::once_flag installed;
    std::call_once(installed, install);
    for (int i = 0; i < kSlots; ++i) {
        Slot& s = slots[i];
        bool expected = false;
        if (!s.used.compare_exchange_strong(expected, true)) continue;
        s.length = length;
        s.file_offset = file_offset;
        const size_t n = std::min(path.size(), sizeof s.path - 1);
        std::memcpy(s.path, path.data(), n);
        s.path[n] = '\0';
        s.base.store(reinterpret_cast<uintptr_t>(base), std::memory_order_release);
        return i;
    }
    return -1;
}

void MappedGuard::remove(int slot) {
    if (slot < 0 || slot >= kSlots) return;
    slots[slot].base.store(0, std::memory_order_release);
    slots[slot].used.store(false, std::memory_order_release);
}

std::string MappedGuard::message(const std::string& path, uint64_t offset) {
    char line[1024];
    const size_t n = format_line(line, sizeof line, path.c_str(), offset);
    return std::string(line, n);
}

}  // namespace ringscope::ipt
