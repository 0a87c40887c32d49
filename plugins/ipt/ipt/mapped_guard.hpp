// A file cut short while it is mapped and decoded: a touch of a page past its new end raises
// SIGBUS, the kernel's answer for every shared or private file mapping. PagesBehind checks the
// size at each step, but a cut in between (or on a worker of -j, which has no steps of its own)
// still meets the signal. MappedGuard turns it into the command's error: the mappings of trace
// files are registered, and a SIGBUS whose address is in one writes one line, as Error::to_string
// writes it ("FILE: offset N (0xN): the file was cut short while it was read"), to stderr and ends
// the process with exit status 1. A SIGBUS anywhere else goes to the handler installed before, or
// to the default action (a core dump), as without the guard.
//
// Why no siglongjmp back into the command: the fault comes from any decoder's inner loop, on any
// thread, between C++ objects whose destructors a longjmp would skip; what the command printed
// up to there is all it could print anyway. The handler uses only async-signal-safe calls (write,
// _exit, sigaction) and reads the registry through lock-free atomics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ringscope::ipt {

class MappedGuard {
  public:
    // At most this many mappings at once (the others are still read, without the guard).
    static constexpr int kSlots = 16;

    // Guards [base, base + length), bytes of path from file offset file_offset on (the handler is
    // installed with the first one). -1 when every slot is taken.
    static int add(const void* base, size_t length, uint64_t file_offset, const std::string& path);
    // The mapping in slot (from add) is about to be unmapped.
    static void remove(int slot);

    // The line the handler writes for a fault at file offset offset of path, without the newline
    // (for tests).
    static std::string message(const std::string& path, uint64_t offset);
};

}  // namespace ringscope::ipt
