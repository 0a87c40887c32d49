// Sequential bounded reading straight from a MappedFile (v6 metadata is inline and may be parsed
// in pread mode, where no whole-file view exists). Same interface as ByteCursor, so the section
// parsers are written once for both.
#pragma once

#include "framework/io/byte_cursor.hpp"
#include "framework/io/mapped_file.hpp"

#include <algorithm>
#include <cstring>

namespace ringscope::io {

class FileCursor {
  public:
    FileCursor(const MappedFile& f, uint64_t offset, bool big_endian, const char* what)
        : f_(f), off_(std::min(offset, f.size())), big_(big_endian), what_(what) {}

    uint64_t offset() const noexcept { return off_; }
    uint64_t remaining() const noexcept { return f_.size() - off_; }
    bool at_end() const noexcept { return off_ == f_.size(); }

    Error error(Errc code, const std::string& msg) const {
        return Error(code, std::string(what_) + ": " + msg).at_offset(static_cast<int64_t>(off_));
    }
    Error short_error(uint64_t need) const {
        return error(Errc::truncated, "needs " + std::to_string(need) + " bytes, " +
                                          std::to_string(remaining()) + " left in the file");
    }

    template <class T>
    Expected<T> read() {
        auto b = bytes(sizeof(T));
        if (!b) return std::move(b).error();
        return load_endian<T>(b->data(), big_);
    }
    // Valid until the next call.
    Expected<std::span<const uint8_t>> bytes(uint64_t n) {
        if (remaining() < n) return short_error(n);
        auto b = f_.read(off_, static_cast<size_t>(n), scratch_);
        if (!b) return std::move(b).error();
        off_ += n;
        return *b;
    }
    // A NUL-terminated string; valid until the next call.
    Expected<std::string_view> cstring() {
        auto whole = f_.bytes();
        if (!whole.empty()) {
            const uint8_t* p = whole.data() + off_;
            const void* nul = std::memchr(p, 0, remaining());
            if (!nul) return error(Errc::truncated, "string without a terminating NUL");
            size_t len = static_cast<const uint8_t*>(nul) - p;
            off_ += len + 1;
            return std::string_view(reinterpret_cast<const char*>(p), len);
        }
        str_.clear();
        uint64_t at = off_;
        for (;;) {
            uint64_t n = std::min<uint64_t>(4096, f_.size() - at);
            if (n == 0) return error(Errc::truncated, "string without a terminating NUL");
            auto b = f_.read(at, static_cast<size_t>(n), scratch_);
            if (!b) return std::move(b).error();
            const void* nul = std::memchr(b->data(), 0, b->size());
            size_t take = nul ? static_cast<size_t>(static_cast<const uint8_t*>(nul) - b->data()) : b->size();
            str_.append(reinterpret_cast<const char*>(b->data()), take);
            if (nul) break;
            at += n;
        }
        off_ += str_.size() + 1;
        return std::string_view(str_);
    }
    Status skip(uint64_t n) {
        if (remaining() < n) return short_error(n);
        off_ += n;
        return {};
    }

  private:
    const MappedFile& f_;
    uint64_t off_;
    bool big_;
    const char* what_;
    std::vector<uint8_t> scratch_;
    std::string str_;
};

}  // namespace ringscope::io
