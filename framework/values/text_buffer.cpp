#include <ringscope/text_buffer.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace ringscope {

void TextBuffer::appendf(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vappendf(fmt, ap);
    va_end(ap);
}

void TextBuffer::vappendf(const char* fmt, va_list ap) {
    size_t old = buf_.size();
    // Try the spare capacity, but not all of it: resize() zero-fills what it adds, and a large
    // buffer (a long summary) would pay for its whole capacity on every call.
    size_t room = std::min<size_t>(buf_.capacity() - old, 256);
    if (room < 64) room = 64;
    buf_.resize(old + room);
    va_list copy;
    va_copy(copy, ap);
    int n = std::vsnprintf(buf_.data() + old, room, fmt, copy);
    va_end(copy);
    if (n < 0) {
        buf_.resize(old);
        return;
    }
    if (static_cast<size_t>(n) >= room) {
        buf_.resize(old + static_cast<size_t>(n) + 1);
        std::vsnprintf(buf_.data() + old, static_cast<size_t>(n) + 1, fmt, ap);
    }
    buf_.resize(old + static_cast<size_t>(n));
}

void TextBuffer::append_uint(uint64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, static_cast<size_t>(r.ptr - tmp));
}

void TextBuffer::append_int(int64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, static_cast<size_t>(r.ptr - tmp));
}

void TextBuffer::append_hex(uint64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v, 16);
    buf_.append(tmp, static_cast<size_t>(r.ptr - tmp));
}

}  // namespace ringscope
