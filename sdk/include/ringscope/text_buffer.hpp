// A growable text buffer that event printers append to. Reused across events, so the hot path
// allocates only when a line is longer than any before it.
#pragma once

#include <charconv>
#include <cstdarg>
#include <cstdint>
#include <cstring>
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

    // Raw writes for hot loops: one size check for a whole piece of a line instead of one per
    // append. begin_write(n) makes room for n more bytes (their content unspecified) and returns
    // where they start; end_write(end) then keeps the text up to `end` (at most the n bytes).
    // The put_* helpers write at p and return the end of what they wrote.
    char* begin_write(size_t n) {
        const size_t old = buf_.size();
        buf_.resize(old + n);
        return buf_.data() + old;
    }
    void end_write(const char* end) { buf_.resize(static_cast<size_t>(end - buf_.data())); }
    static char* put(char* p, std::string_view s) noexcept {
        std::memcpy(p, s.data(), s.size());
        return p + s.size();
    }
    static char* put(char* p, char c) noexcept {
        *p = c;
        return p + 1;
    }
    // Decimal: put_int and put_uint write at most kMaxIntChars bytes; put_int_width pads with
    // zeros to `width` characters as printf's "%0*d" (the sign first) and writes at most
    // max(width, kMaxIntChars).
    static constexpr size_t kMaxIntChars = 20;
    static char* put_int(char* p, int64_t v) noexcept { return std::to_chars(p, p + kMaxIntChars, v).ptr; }
    static char* put_uint(char* p, uint64_t v) noexcept { return std::to_chars(p, p + kMaxIntChars, v).ptr; }
    static char* put_int_width(char* p, int64_t v, unsigned width) noexcept {
        char digits[kMaxIntChars];
        uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
        const size_t n = static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, mag).ptr - digits);
        if (v < 0) *p++ = '-';
        const size_t want = width > (v < 0 ? 1u : 0u) ? width - (v < 0 ? 1u : 0u) : 0;
        for (size_t i = n; i < want; ++i) *p++ = '0';
        std::memcpy(p, digits, n);
        return p + n;
    }

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
