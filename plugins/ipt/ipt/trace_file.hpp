// A trace file's bytes, or the part of it that FILE:FROM-TO names, in an aligned buffer (libipt's
// PSB search depends on memory alignment; malloc'ed buffers are aligned at least like this).
//
// map() maps a regular file read-only instead of reading it: its pages are read as a decoder
// touches them, and PagesBehind (pages_behind.hpp) gives back those it has passed, so that the
// resident memory of a pass over the stream stays flat in its size. A file cut short while it is
// mapped raises SIGBUS on a touch past its new end: PagesBehind checks the size before each of
// its steps and stops the command with an error; a cut within a step (or met by a -j worker) is
// caught by MappedGuard (mapped_guard.hpp), which ends the command with the same one-line error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <ringscope/error.hpp>

namespace ringscope::ipt {

class TraceBytes {
  public:
    const uint8_t* begin() const noexcept { return begin_; }
    const uint8_t* end() const noexcept { return begin_ + size_; }
    size_t size() const noexcept { return size_; }

    // Reads [offset, offset + size) of path (size 0: to the end). A path that is no regular file
    // (a pipe, /dev/stdin) is read once, front to back, up to 1 GiB.
    static Expected<TraceBytes> load(const std::string& path, uint64_t offset = 0, uint64_t size = 0);
    // As load, but a regular file is mapped (read-only, private). Read as load does: what is no
    // regular file, an empty range, and an offset that is no multiple of 64 (begin() must keep
    // load's alignment for the PSB search).
    static Expected<TraceBytes> map(const std::string& path, uint64_t offset = 0, uint64_t size = 0);
    // A copy of bytes.
    static TraceBytes copy(const uint8_t* data, size_t size);

    // Whether the bytes are a file's mapping; its descriptor, path and the offset of begin() in it.
    bool mapped() const noexcept { return map_ != nullptr; }
    int fd() const noexcept;
    const std::string& path() const noexcept;
    uint64_t file_offset() const noexcept;

  private:
    static Expected<TraceBytes> load_stream(std::FILE* f, const std::string& path, uint64_t offset,
                                            uint64_t size);
    struct Free {
        void operator()(uint8_t* p) const noexcept;
    };
    struct Mapping;
    struct Unmap {
        void operator()(Mapping* m) const noexcept;
    };
    std::unique_ptr<uint8_t, Free> data_;  // the bytes read or copied
    std::unique_ptr<Mapping, Unmap> map_;  // or mapped
    const uint8_t* begin_ = nullptr;
    size_t size_ = 0;
};

}  // namespace ringscope::ipt
