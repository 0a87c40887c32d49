// Bounded, endian-aware reading and writing of the integers and strings trace.dat is made of.
// Every read checks the remaining length first; failures name the absolute file offset.
#pragma once

#include <ringscope/error.hpp>

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ringscope::io {

template <class T>
inline T byte_swap(T v) noexcept {
    if constexpr (sizeof(T) == 1) {
        return v;
    } else if constexpr (sizeof(T) == 2) {
        return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
    } else if constexpr (sizeof(T) == 4) {
        return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
    } else {
        return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
    }
}

template <class T>
inline T load_endian(const uint8_t* p, bool big_endian) noexcept {
    T v;
    std::memcpy(&v, p, sizeof v);
    if (big_endian != (std::endian::native == std::endian::big)) v = byte_swap(v);
    return v;
}

template <class T>
inline void store_endian(uint8_t* p, T v, bool big_endian) noexcept {
    if (big_endian != (std::endian::native == std::endian::big)) v = byte_swap(v);
    std::memcpy(p, &v, sizeof v);
}

class ByteCursor {
  public:
    // BASE is the file offset of DATA[0]; WHAT names the structure in error messages. For data
    // that was decompressed, set DECOMPRESSED: BASE is then the section's file offset and errors
    // also name the position inside the uncompressed bytes.
    ByteCursor(std::span<const uint8_t> data, uint64_t base, bool big_endian, const char* what,
               bool decompressed = false)
        : data_(data), base_(base), big_(big_endian), decompressed_(decompressed), what_(what) {}

    uint64_t offset() const noexcept { return decompressed_ ? base_ : base_ + pos_; }
    size_t pos() const noexcept { return pos_; }
    size_t remaining() const noexcept { return data_.size() - pos_; }
    bool at_end() const noexcept { return pos_ == data_.size(); }

    Error error(Errc code, const std::string& msg) const {
        std::string m = std::string(what_) + ": " + msg;
        if (decompressed_) m += " (at byte " + std::to_string(pos_) + " of the uncompressed section)";
        return Error(code, std::move(m)).at_offset(static_cast<int64_t>(offset()));
    }
    Error short_error(size_t need) const {
        return error(Errc::truncated,
                     "needs " + std::to_string(need) + " bytes, " + std::to_string(remaining()) + " left");
    }

    template <class T>
    Expected<T> read() {
        if (remaining() < sizeof(T)) return short_error(sizeof(T));
        T v = load_endian<T>(data_.data() + pos_, big_);
        pos_ += sizeof(T);
        return v;
    }
    Expected<std::span<const uint8_t>> bytes(uint64_t n) {
        if (remaining() < n) return short_error(static_cast<size_t>(n));
        auto s = data_.subspan(pos_, static_cast<size_t>(n));
        pos_ += static_cast<size_t>(n);
        return s;
    }
    // A NUL-terminated string (the NUL is consumed, not returned).
    Expected<std::string_view> cstring() {
        const void* nul = std::memchr(data_.data() + pos_, 0, remaining());
        if (!nul) return error(Errc::truncated, "string without a terminating NUL");
        size_t len = static_cast<const uint8_t*>(nul) - (data_.data() + pos_);
        std::string_view s(reinterpret_cast<const char*>(data_.data() + pos_), len);
        pos_ += len + 1;
        return s;
    }
    Status skip(uint64_t n) {
        if (remaining() < n) return short_error(static_cast<size_t>(n));
        pos_ += static_cast<size_t>(n);
        return {};
    }

  private:
    std::span<const uint8_t> data_;
    uint64_t base_;
    size_t pos_ = 0;
    bool big_;
    bool decompressed_;
    const char* what_;
};

// Appends integers and strings in the file's byte order.
class ByteSink {
  public:
    explicit ByteSink(bool big_endian) : big_(big_endian) {}
    template <class T>
    void put(T v) {
        size_t at = buf_.size();
        buf_.resize(at + sizeof(T));
        store_endian<T>(buf_.data() + at, v, big_);
    }
    void put_bytes(std::span<const uint8_t> b) { buf_.insert(buf_.end(), b.begin(), b.end()); }
    void put_text(std::string_view s) {
        buf_.insert(buf_.end(), reinterpret_cast<const uint8_t*>(s.data()),
                    reinterpret_cast<const uint8_t*>(s.data()) + s.size());
    }
    void put_cstring(std::string_view s) {
        put_text(s);
        buf_.push_back(0);
    }
    template <class T>
    void patch(size_t at, T v) {
        store_endian<T>(buf_.data() + at, v, big_);
    }
    std::vector<uint8_t>& buffer() noexcept { return buf_; }
    const std::vector<uint8_t>& buffer() const noexcept { return buf_; }
    size_t size() const noexcept { return buf_.size(); }
    bool big_endian() const noexcept { return big_; }

  private:
    std::vector<uint8_t> buf_;
    bool big_;
};

}  // namespace ringscope::io
