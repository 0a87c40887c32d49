// ClickHouse's Native format, as `INSERT ... FORMAT Native` reads it over HTTP: a block is the
// column and row counts, then each column whole (name, type, values). The server takes columns in
// bulk, about twice as fast as row formats for the arrays of the events table.
// Values: integers little-endian at their width; String = LEB128 length + bytes each; Array(T) =
// the cumulative end offsets (UInt64, one per row), then the elements of all rows as a column of T.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ringscope::exporter {

// Appends to a byte buffer; the columns below write their values through it.
class NativeBytes {
  public:
    void varuint(uint64_t v) {
        while (v >= 0x80) {
            bytes_.push_back(static_cast<uint8_t>(v | 0x80));
            v >>= 7;
        }
        bytes_.push_back(static_cast<uint8_t>(v));
    }
    void string(std::string_view s) {
        varuint(s.size());
        bytes_.insert(bytes_.end(), s.begin(), s.end());
    }
    template <class T>
    void fixed(T v) {
        static_assert(std::endian::native == std::endian::little, "Native is little-endian");
        size_t at = bytes_.size();
        bytes_.resize(at + sizeof v);
        std::memcpy(bytes_.data() + at, &v, sizeof v);
    }
    // As a NativeBlockWriter sink.
    void add(std::span<const uint8_t> b) { bytes_.insert(bytes_.end(), b.begin(), b.end()); }

    const std::vector<uint8_t>& bytes() const noexcept { return bytes_; }
    std::vector<uint8_t>& bytes() noexcept { return bytes_; }
    size_t size() const noexcept { return bytes_.size(); }
    void clear() noexcept { bytes_.clear(); }

  private:
    std::vector<uint8_t> bytes_;
};

// The offsets part of an Array column: end_row() after the row's elements went into the nested column.
class NativeArrayOffsets {
  public:
    void add_elements(uint64_t n) noexcept { total_ += n; }
    void end_row() { data_.fixed(total_); }
    uint64_t total() const noexcept { return total_; }
    const NativeBytes& data() const noexcept { return data_; }
    void clear() noexcept {
        data_.clear();
        total_ = 0;
    }

  private:
    NativeBytes data_;
    uint64_t total_ = 0;
};

// One block: the header, then each column's name, type and values (concatenated parts for arrays),
// handed to SINK piece by piece (a byte buffer, or a compressor) so the columns are not copied first.
template <class Sink>
class NativeBlockWriter {
  public:
    NativeBlockWriter(Sink& out, size_t columns, size_t rows) : out_(out) {
        scratch_.varuint(columns);
        scratch_.varuint(rows);
        flush_scratch();
    }
    // PARTS: the column's pieces in order (array offsets first); null entries are skipped.
    void column(std::string_view name, std::string_view type, std::span<const NativeBytes* const> parts) {
        scratch_.string(name);
        scratch_.string(type);
        flush_scratch();
        for (const NativeBytes* p : parts)
            if (p) out_.add(p->bytes());
    }

  private:
    void flush_scratch() {
        out_.add(scratch_.bytes());
        scratch_.clear();
    }

    Sink& out_;
    NativeBytes scratch_;
};

}  // namespace ringscope::exporter
