// Decompressed chunks offered by one reader of a CPU's pages to the other readers of the same
// pages (the clones report -j's threads use): the chunk where a time slice starts is also the one
// where the slice before it ends, read by another thread, so one decompression serves both.
// Bounded: the CAPACITY chunks put last. Thread-safe; a get copies the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace ringscope::io {

class SharedChunks {
  public:
    explicit SharedChunks(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

    // Chunk INDEX into OUT (resized); false when it is not held.
    bool get(size_t index, std::vector<uint8_t>& out) const;
    // Holds a copy of chunk INDEX (BYTES, as decompressed), in place of the oldest held.
    void put(size_t index, std::span<const uint8_t> bytes);

  private:
    struct Entry {
        size_t index;
        std::shared_ptr<const std::vector<uint8_t>> bytes;
    };
    size_t capacity_;
    mutable std::mutex mu_;
    std::vector<Entry> entries_;  // a ring: entries_[next_] is the oldest once full
    size_t next_ = 0;
};

}  // namespace ringscope::io
