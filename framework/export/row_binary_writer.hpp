// ClickHouse's RowBinary encoding, appended to a byte buffer: integers little-endian at their width,
// strings and arrays as a LEB128 length followed by the bytes or elements.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ringscope::exporter {

class RowBinaryWriter {
  public:
    void u8(uint8_t v) { bytes_.push_back(v); }
    void u32(uint32_t v) { fixed(v); }
    void i32(int32_t v) { fixed(v); }
    void u64(uint64_t v) { fixed(v); }
    void i64(int64_t v) { fixed(v); }
    void varuint(uint64_t v);
    void string(std::string_view s);
    // Array(String) / Array(Int64) from a list; Array(Array(...)) callers write the count with
    // array_size() and then each element.
    void array_size(size_t n) { varuint(n); }
    void strings(std::span<const std::string_view> items);
    // Bytes already in RowBinary form (a value encoded once and reused).
    void raw(std::span<const uint8_t> encoded) {
        bytes_.insert(bytes_.end(), encoded.begin(), encoded.end());
    }
    void int64s(std::span<const int64_t> items);

    const std::vector<uint8_t>& bytes() const noexcept { return bytes_; }
    size_t size() const noexcept { return bytes_.size(); }
    void clear() noexcept { bytes_.clear(); }

  private:
    template <class T>
    void fixed(T v) {
        static_assert(std::endian::native == std::endian::little, "RowBinary is little-endian");
        size_t at = bytes_.size();
        bytes_.resize(at + sizeof v);
        std::memcpy(bytes_.data() + at, &v, sizeof v);
    }

    std::vector<uint8_t> bytes_;
};

}  // namespace ringscope::exporter
