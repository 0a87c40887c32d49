#include "framework/io/shared_chunks.hpp"

#include <algorithm>
#include <cstring>

namespace ringscope::io {

bool SharedChunks::get(size_t index, std::vector<uint8_t>& out) const {
    std::shared_ptr<const std::vector<uint8_t>> bytes;
    {
        std::lock_guard lock(mu_);
        auto it =
            std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.index == index; });
        if (it == entries_.end()) return false;
        bytes = it->bytes;
    }
    out.resize(bytes->size());
    if (!bytes->empty()) std::memcpy(out.data(), bytes->data(), bytes->size());
    return true;
}

void SharedChunks::put(size_t index, std::span<const uint8_t> bytes) {
    auto copy = std::make_shared<const std::vector<uint8_t>>(bytes.begin(), bytes.end());
    std::lock_guard lock(mu_);
    for (Entry& e : entries_) {
        if (e.index == index) return;  // held already (the bytes of a chunk never change)
    }
    if (entries_.size() < capacity_) {
        entries_.push_back({index, std::move(copy)});
        return;
    }
    entries_[next_] = {index, std::move(copy)};
    next_ = (next_ + 1) % capacity_;
}

}  // namespace ringscope::io
