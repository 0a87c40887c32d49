#include "framework/output/output_buffer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace ringscope::output {

OutputBuffer::OutputBuffer(std::FILE* out, size_t capacity)
    : out_(out),
      fd_(fileno(out)),
      buf_(new char[std::max<size_t>(capacity, 4096)]),
      cap_(std::max<size_t>(capacity, 4096)) {}

OutputBuffer::OutputBuffer(size_t capacity)
    : out_(nullptr),
      fd_(-1),
      buf_(new char[std::max<size_t>(capacity, 4096)]),
      cap_(std::max<size_t>(capacity, 4096)) {}

OutputBuffer::~OutputBuffer() {
    flush();
}

bool OutputBuffer::flush() {
    if (!out_) return true;
    if (failed_) {
        len_ = 0;
        return false;
    }
    // Whatever went to the FILE* before (headers printed with stdio) must come first.
    std::fflush(out_);
    write_all(buf_.get(), len_);
    len_ = 0;
    return !failed_;
}

void OutputBuffer::write_all(const char* p, size_t n) {
    size_t done = 0;
    while (done < n && !failed_) {
        ssize_t k = ::write(fd_, p + done, n - done);
        if (k < 0) {
            if (errno == EINTR) continue;
            failed_ = true;
            errno_ = errno;
            break;
        }
        done += static_cast<size_t>(k);
    }
}

void OutputBuffer::append_unbuffered(std::string_view s) {
    constexpr size_t kSmall = 64 * 1024;
    if (!out_ || s.size() <= kSmall) {
        append(s);
        return;
    }
    if (flush()) write_all(s.data(), s.size());
}

void OutputBuffer::make_room(size_t n) {
    if (out_) {
        flush();
        if (n <= cap_) return;  // else grow: reserve() promises n contiguous bytes
    }
    const size_t cap = std::max(cap_ * 2, len_ + n);
    std::unique_ptr<char[]> bigger(new char[cap]);
    std::memcpy(bigger.get(), buf_.get(), len_);
    buf_ = std::move(bigger);
    cap_ = cap;
}

void OutputBuffer::slow_append(std::string_view s) {
    if (!out_) make_room(s.size());
    while (!s.empty()) {
        if (len_ == cap_) flush();
        size_t k = std::min(s.size(), cap_ - len_);
        std::memcpy(buf_.get() + len_, s.data(), k);
        len_ += k;
        s.remove_prefix(k);
    }
}

}  // namespace ringscope::output
