// Builds sub-buffers by hand, for what a real kernel rarely writes: other byte orders and long
// sizes, absolute time stamps, padding, and corrupt headers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace ringscope::test {

class PageBuilder {
  public:
    PageBuilder(bool big_endian, unsigned long_size, uint32_t subbuf_size, uint64_t page_ts)
        : big_(big_endian), long_(long_size), subbuf_(subbuf_size), ts_(page_ts) {}

    // type_len 1..28 (len a multiple of 4, at most 112) or 0 (any len, array[0] = len + 4).
    PageBuilder& event(uint32_t delta, uint32_t len, bool force_array = false) {
        if (!force_array && len && len <= 112 && len % 4 == 0) {
            word(len / 4, delta);
        } else {
            word(0, delta);
            put32(len + 4);
        }
        payload(len);
        if (len % 4) data_.resize(data_.size() + (4 - len % 4), 0);
        return *this;
    }
    PageBuilder& extend(uint64_t delta) {
        word(30, static_cast<uint32_t>(delta & ((1u << 27) - 1)));
        put32(static_cast<uint32_t>(delta >> 27));
        return *this;
    }
    PageBuilder& absolute(uint64_t ts) {
        word(31, static_cast<uint32_t>(ts & ((1u << 27) - 1)));
        put32(static_cast<uint32_t>(ts >> 27));
        return *this;
    }
    // A discarded event (delta != 0) or padding: array[0] = bytes after the header word.
    PageBuilder& padding(uint32_t delta, uint32_t len) {
        word(29, delta);
        put32(len - 4);
        data_.resize(data_.size() + len - 8, 0xee);
        return *this;
    }
    PageBuilder& raw32(uint32_t v) {
        put32(v);
        return *this;
    }
    PageBuilder& missed(std::optional<uint64_t> count) {
        missed_ = true;
        stored_ = count;
        return *this;
    }
    uint32_t data_size() const { return static_cast<uint32_t>(data_.size()); }

    // The whole sub-buffer; commit_override replaces the data size in the commit word.
    std::vector<uint8_t> build(std::optional<uint64_t> commit_override = std::nullopt) const {
        std::vector<uint8_t> page(subbuf_, 0);
        put(page.data(), 8, ts_);
        uint64_t commit = commit_override ? *commit_override : data_.size();
        if (missed_) commit |= uint64_t{1} << 31;
        if (stored_) commit |= uint64_t{1} << 30;
        put(page.data() + 8, long_, commit);
        const size_t start = 8 + long_;
        std::memcpy(page.data() + start, data_.data(), std::min(data_.size(), page.size() - start));
        if (stored_ && start + data_.size() + long_ <= page.size()) {
            put(page.data() + start + data_.size(), long_, *stored_);
        }
        return page;
    }

  private:
    void word(uint32_t type_len, uint32_t delta) {
        put32(big_ ? (type_len << 27) | delta : (delta << 5) | type_len);
    }
    void put32(uint32_t v) {
        uint8_t b[4];
        put(b, 4, v);
        data_.insert(data_.end(), b, b + 4);
    }
    void payload(uint32_t len) {
        for (uint32_t i = 0; i < len; ++i) data_.push_back(static_cast<uint8_t>(counter_++));
    }
    void put(uint8_t* p, unsigned n, uint64_t v) const {
        for (unsigned i = 0; i < n; ++i) {
            const unsigned shift = big_ ? 8 * (n - 1 - i) : 8 * i;
            p[i] = static_cast<uint8_t>(v >> shift);
        }
    }

    bool big_;
    unsigned long_;
    uint32_t subbuf_;
    uint64_t ts_;
    std::vector<uint8_t> data_;
    bool missed_ = false;
    std::optional<uint64_t> stored_;
    uint8_t counter_ = 1;
};

}  // namespace ringscope::test
