#include "framework/export/row_binary_writer.hpp"

namespace ringscope::exporter {

void RowBinaryWriter::varuint(uint64_t v) {
    while (v >= 0x80) {
        bytes_.push_back(static_cast<uint8_t>(v | 0x80));
        v >>= 7;
    }
    bytes_.push_back(static_cast<uint8_t>(v));
}

void RowBinaryWriter::string(std::string_view s) {
    varuint(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
}

void RowBinaryWriter::strings(std::span<const std::string_view> items) {
    varuint(items.size());
    for (std::string_view s : items) string(s);
}

void RowBinaryWriter::int64s(std::span<const int64_t> items) {
    varuint(items.size());
    size_t at = bytes_.size();
    bytes_.resize(at + items.size() * sizeof(int64_t));
    if (!items.empty()) std::memcpy(bytes_.data() + at, items.data(), items.size() * sizeof(int64_t));
}

}  // namespace ringscope::exporter
