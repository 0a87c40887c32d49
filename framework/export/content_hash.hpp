// A file's identity for exactly-once exports: a 64-bit hash of its bytes, read in chunks (never the
// whole file at once), and the file id combining it with the trace id.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <ringscope/error.hpp>

namespace ringscope::exporter {

// Not cryptographic: it tells apart different captures, it does not resist a forger.
class ContentHash {
  public:
    void update(std::span<const uint8_t> bytes);
    uint64_t digest() const;

    // The hash of the file at PATH. Errors name the file.
    static Expected<uint64_t> of_file(const std::string& path);

  private:
    void mix_word(uint64_t w);

    uint64_t state_ = 0x9e3779b97f4a7c15ULL;
    uint64_t length_ = 0;
    uint8_t tail_[8] = {};
    size_t tail_len_ = 0;
};

// The events partition and files key of one file: mixes the trace id (0 when the file has none)
// and the content hash.
uint64_t file_id(uint64_t trace_id, uint64_t content_hash);

}  // namespace ringscope::exporter
