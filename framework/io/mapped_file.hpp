// A read-only byte source over a file: mmap for regular files (zero copy), pread for anything that
// cannot be mapped, and a full read into memory for pipes and sockets (read once per process:
// opening the same pipe again, e.g. /dev/stdin after a format probe, gives the same bytes).
#pragma once

#include <ringscope/error.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ringscope::io {

class MappedFile {
  public:
    enum class Mode : uint8_t { mapped, pread, memory };

    // At most this much is read from a pipe (held in memory); a bigger input wants a file.
    static constexpr uint64_t kMaxPipeBytes = uint64_t(4) << 30;

    // Opens PATH read-only. ALLOW_MMAP = false forces pread mode for regular files (tests, and
    // files that may shrink under the reader). Errors: Errc::io with the errno text; character
    // and block devices (/dev/zero never ends) and pipes past kMaxPipeBytes or the memory
    // available are refused, naming the offset reached.
    static Expected<std::shared_ptr<MappedFile>> open(const std::string& path, bool allow_mmap = true);
    // Wraps bytes already in memory (tests, generated files); NAME is used in errors.
    static std::shared_ptr<MappedFile> from_bytes(std::vector<uint8_t> bytes, std::string name);

    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::string& path() const noexcept { return path_; }
    uint64_t size() const noexcept { return size_; }
    Mode mode() const noexcept { return mode_; }

    // The whole file when it is in memory (mapped or memory mode), else empty.
    std::span<const uint8_t> bytes() const noexcept { return {data_, data_ ? size_ : 0}; }

    // LEN bytes at OFFSET: a view into the mapping, or read into SCRATCH (resized) in pread mode.
    // Errors: Errc::truncated (range past the end, with the offset), Errc::io.
    Expected<std::span<const uint8_t>> read(uint64_t offset, size_t len, std::vector<uint8_t>& scratch) const;

    // Copies LEN bytes at OFFSET into DST with pread(2) in every mode (from memory in memory
    // mode): a copy that leaves the bytes in the cache without mapping the file's pages.
    // Errors as read().
    Status copy(uint64_t offset, size_t len, uint8_t* dst) const;

  private:
    MappedFile() = default;
    Status check_range(uint64_t offset, size_t len) const;  // Errc::truncated past the end
    Status read_all();                                      // a pipe, into memory_

    std::string path_;
    int fd_ = -1;
    uint64_t size_ = 0;
    const uint8_t* data_ = nullptr;
    Mode mode_ = Mode::memory;
    std::vector<uint8_t> memory_;
};

}  // namespace ringscope::io
