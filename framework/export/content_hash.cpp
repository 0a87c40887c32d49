#include "framework/export/content_hash.hpp"

#include <cstring>
#include <vector>

#include "framework/io/mapped_file.hpp"

namespace ringscope::exporter {
namespace {

// splitmix64's finaliser: every input bit reaches every output bit.
uint64_t avalanche(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

}  // namespace

void ContentHash::mix_word(uint64_t w) {
    state_ ^= w * 0x87c37b91114253d5ULL;
    state_ = ((state_ << 31) | (state_ >> 33)) * 0x4cf5ad432745937fULL;
}

void ContentHash::update(std::span<const uint8_t> bytes) {
    length_ += bytes.size();
    size_t i = 0;
    if (tail_len_) {
        while (tail_len_ < 8 && i < bytes.size()) tail_[tail_len_++] = bytes[i++];
        if (tail_len_ < 8) return;
        uint64_t w;
        std::memcpy(&w, tail_, 8);
        mix_word(w);
        tail_len_ = 0;
    }
    for (; i + 8 <= bytes.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, bytes.data() + i, 8);
        mix_word(w);
    }
    while (i < bytes.size()) tail_[tail_len_++] = bytes[i++];
}

uint64_t ContentHash::digest() const {
    uint64_t last = 0;
    std::memcpy(&last, tail_, tail_len_);
    uint64_t s = state_ ^ (last * 0x9e3779b97f4a7c15ULL);
    return avalanche(s ^ length_);
}

Expected<uint64_t> ContentHash::of_file(const std::string& path) {
    auto file = io::MappedFile::open(path);
    if (!file) return std::move(file).error().in_file(path);
    ContentHash h;
    std::vector<uint8_t> scratch;
    constexpr size_t kChunk = 1 << 20;
    for (uint64_t off = 0; off < (*file)->size(); off += kChunk) {
        size_t len = static_cast<size_t>(std::min<uint64_t>(kChunk, (*file)->size() - off));
        auto chunk = (*file)->read(off, len, scratch);
        if (!chunk) return std::move(chunk).error().in_file(path);
        h.update(*chunk);
    }
    return h.digest();
}

uint64_t file_id(uint64_t trace_id, uint64_t content_hash) {
    return avalanche(trace_id ^ avalanche(content_hash + 0x632be59bd9b4e019ULL));
}

}  // namespace ringscope::exporter
