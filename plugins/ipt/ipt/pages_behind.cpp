#include "ipt/pages_behind.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace ringscope::ipt {

PagesBehind::PagesBehind(const TraceBytes& bytes, Direction d)
    : bytes_(bytes), forward_(d == Direction::forward) {
    const uint64_t size = bytes.size();
    if (!bytes.mapped()) {
        // Nothing to give back: no step is ever reached.
        next_ = forward_ ? UINT64_MAX : 0;
        return;
    }
    next_ = forward_ ? 0 : size;
    dropped_ = forward_ ? 0 : size;
}

bool PagesBehind::step(uint64_t offset) {
    const uint64_t size = bytes_.size();
    if (offset > size) offset = size;
    if (!still_whole(offset)) {
        next_ = forward_ ? UINT64_MAX : 0;
        return false;
    }
    if (forward_) {
        if (offset > kKeep && offset - kKeep > dropped_) {
            drop(dropped_, offset - kKeep);
            dropped_ = offset - kKeep;
        }
        next_ = offset + kStep;
    } else {
        if (offset + kKeep < dropped_) {
            drop(offset + kKeep, dropped_);
            dropped_ = offset + kKeep;
        }
        next_ = offset > kStep ? offset - kStep : 0;
    }
    return true;
}

// Whether the file still holds every byte mapped.
bool PagesBehind::still_whole(uint64_t offset) {
    struct stat st {};
    const uint64_t end = bytes_.file_offset() + bytes_.size();
    std::string why;
    if (fstat(bytes_.fd(), &st) != 0)
        why = std::string("cannot stat: ") + std::strerror(errno);
    else if (static_cast<uint64_t>(st.st_size) < end)
        why = "the file shrank to " + std::to_string(st.st_size) + " bytes (of " + std::to_string(end) +
              ") while it was read";
    else
        return true;
    failed_ = true;
    error_ = Error(Errc::truncated, why)
                 .in_file(bytes_.path())
                 .at_offset(static_cast<int64_t>(bytes_.file_offset() + offset));
    return false;
}

// Gives back the whole pages in [from, to) (offsets from begin()).
void PagesBehind::drop(uint64_t from, uint64_t to) {
    static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto lo = (reinterpret_cast<uintptr_t>(bytes_.begin() + from) + page - 1) / page * page;
    const auto hi = reinterpret_cast<uintptr_t>(bytes_.begin() + to) / page * page;
    if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

}  // namespace ringscope::ipt
