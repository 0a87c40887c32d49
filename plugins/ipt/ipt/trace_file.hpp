// A trace file's bytes, or the part of it that FILE:FROM-TO names, in an aligned buffer (libipt's
// PSB search depends on memory alignment; malloc'ed buffers are aligned at least like this).
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
    const uint8_t* begin() const noexcept { return data_.get(); }
    const uint8_t* end() const noexcept { return data_.get() + size_; }
    size_t size() const noexcept { return size_; }

    // Reads [offset, offset + size) of path (size 0: to the end). A path that is no regular file
    // (a pipe, /dev/stdin) is read once, front to back, up to 1 GiB.
    static Expected<TraceBytes> load(const std::string& path, uint64_t offset = 0, uint64_t size = 0);
    // A copy of bytes.
    static TraceBytes copy(const uint8_t* data, size_t size);

  private:
    static Expected<TraceBytes> load_stream(std::FILE* f, const std::string& path, uint64_t offset,
                                            uint64_t size);
    struct Free {
        void operator()(uint8_t* p) const noexcept;
    };
    std::unique_ptr<uint8_t, Free> data_;
    size_t size_ = 0;
};

}  // namespace ringscope::ipt
