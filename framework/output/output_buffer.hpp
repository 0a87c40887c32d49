// A large output block written with one write(2) when full: report output goes through here so
// that printing costs a memcpy per piece, not a stdio call per field. Without a FILE it only
// collects (growing instead of writing): `report -j` formats batches of lines in worker threads so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

namespace ringscope::output {

class OutputBuffer {
  public:
    static constexpr size_t kDefaultCapacity = size_t{1} << 20;

    // Writes to `out` (flushed first, then written with write(2) on its descriptor).
    explicit OutputBuffer(std::FILE* out, size_t capacity = kDefaultCapacity);
    // In memory: view() holds everything appended since the last clear().
    explicit OutputBuffer(size_t capacity = 64 * 1024);
    OutputBuffer(const OutputBuffer&) = delete;
    OutputBuffer& operator=(const OutputBuffer&) = delete;
    ~OutputBuffer();

    void append(std::string_view s) {
        if (s.size() > cap_ - len_) {
            slow_append(s);
            return;
        }
        std::memcpy(buf_.get() + len_, s.data(), s.size());
        len_ += s.size();
    }
    void append(const char* p, size_t n) { append(std::string_view(p, n)); }
    // A large block (a batch of lines) written out without copying it in: what is buffered, then
    // the block itself. Small blocks and in-memory buffers are appended.
    void append_unbuffered(std::string_view s);
    void push_back(char c) {
        if (len_ == cap_) make_room(1);
        buf_[len_++] = c;
    }
    void append_repeat(char c, size_t n) {
        while (n > 0) {
            if (len_ == cap_) make_room(n);
            size_t k = std::min(n, cap_ - len_);
            std::memset(buf_.get() + len_, c, k);
            len_ += k;
            n -= k;
        }
    }
    // Room for at least `n` bytes written directly at reserve(n); commit(k) keeps k of them.
    char* reserve(size_t n) {
        if (n > cap_ - len_) make_room(n);
        return buf_.get() + len_;
    }
    void commit(size_t n) noexcept { len_ += n; }

    // Writes what is buffered (in memory: nothing to do). False when the write failed (errno set);
    // later writes are dropped.
    bool flush();
    std::string_view view() const noexcept { return {buf_.get(), len_}; }
    void clear() noexcept { len_ = 0; }
    bool failed() const noexcept { return failed_; }
    int error_number() const noexcept { return errno_; }

  private:
    void slow_append(std::string_view s);
    void write_all(const char* p, size_t n);
    void make_room(size_t n);  // writes out, or in memory grows to hold n more bytes

    std::FILE* out_;  // null: in memory
    int fd_;
    std::unique_ptr<char[]> buf_;
    size_t cap_;
    size_t len_ = 0;
    bool failed_ = false;
    int errno_ = 0;
};

}  // namespace ringscope::output
