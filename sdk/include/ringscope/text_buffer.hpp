// A growable text buffer that event printers append to. Reused across events, so the hot path
// allocates only when a line is longer than any before it.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <string>
#include <string_view>

namespace ringscope {

class TextBuffer {
public:
    void append(std::string_view s) { buf_.append(s.data(), s.size()); }
    void push_back(char c) { buf_.push_back(c); }
    void append_repeat(char c, size_t n) { buf_.append(n, c); }
    // printf semantics exactly (kernel print fmts are printf formats).
    void appendf(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
    void vappendf(const char* fmt, va_list ap);
    void append_uint(uint64_t v);
    void append_int(int64_t v);
    void append_hex(uint64_t v);  // lowercase, no prefix

    std::string_view view() const noexcept { return buf_; }
    const char* data() const noexcept { return buf_.data(); }
    size_t size() const noexcept { return buf_.size(); }
    bool empty() const noexcept { return buf_.empty(); }
    void clear() noexcept { buf_.clear(); }
    void resize(size_t n) { buf_.resize(n); }
    std::string& str() noexcept { return buf_; }

private:
    std::string buf_;
};

}  // namespace ringscope
