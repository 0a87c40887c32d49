// Bytes written at the end, for events' payloads and a part's records. Unlike std::vector<uint8_t>,
// growing it leaves the new bytes as they are: a writer that fills them pays no zeroing, and
// the check for room is the only cost of an append once the buffer has grown to the part's size
// (report -j wrote ~1.3 GB of records per 64 MiB of trace through vector::resize, zeroing each byte
// before the event builder wrote it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

namespace ringscope::ipt {

class ByteBuffer {
  public:
    uint8_t* data() noexcept { return data_.get(); }
    const uint8_t* data() const noexcept { return data_.get(); }
    size_t size() const noexcept { return size_; }
    std::span<const uint8_t> bytes() const noexcept { return {data_.get(), size_}; }

    void clear() noexcept { size_ = 0; }
    // The size becomes N: the first min(N, size()) bytes are kept, the others are not set.
    void resize(size_t n) {
        if (n > capacity_) grow(n);
        size_ = n;
    }
    // N more bytes, not set: where they start.
    uint8_t* extend(size_t n) {
        const size_t at = size_;
        resize(at + n);
        return data_.get() + at;
    }
    void append(const void* bytes, size_t n) {
        if (n) std::memcpy(extend(n), bytes, n);
    }

  private:
    void grow(size_t n) {
        size_t cap = capacity_ < 256 ? 256 : capacity_;
        while (cap < n) cap *= 2;
        auto bigger = std::make_unique_for_overwrite<uint8_t[]>(cap);
        if (size_) std::memcpy(bigger.get(), data_.get(), size_);
        data_ = std::move(bigger);
        capacity_ = cap;
    }

    std::unique_ptr<uint8_t[]> data_;
    size_t size_ = 0, capacity_ = 0;
};

}  // namespace ringscope::ipt
