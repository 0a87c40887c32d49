// Nonzero 32-bit values by 64-bit key in one array, probed linearly and kept at most half full, so
// that a look-up is a multiply and a probe or two: the block cache's runs by address and mode, the
// call tree's nodes by (parent, function). Keys are only added, or all dropped at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringscope::ipt {

class FlatIndex {
  public:
    // first_slots (a power of two) are allocated at the first add.
    explicit FlatIndex(size_t first_slots) noexcept : first_slots_(first_slots) {}

    // key's value, or 0 when key was not added.
    uint32_t find(uint64_t key) const noexcept {
        if (slots_.empty()) return 0;
        for (size_t i = slot_of(key);; i = (i + 1) & mask_) {
            if (!slots_[i].value || slots_[i].key == key) return slots_[i].value;
        }
    }
    // Adds key (not added yet) with value (not 0).
    void add(uint64_t key, uint32_t value) {
        if ((count_ + 1) * 2 > slots_.size()) grow();
        place(key, value);
        ++count_;
    }
    // Every key dropped, the room kept.
    void clear() noexcept {
        slots_.assign(slots_.size(), Slot{});
        count_ = 0;
    }

  private:
    struct Slot {
        uint64_t key = 0;
        uint32_t value = 0;  // 0: free
    };
    size_t slot_of(uint64_t key) const noexcept {
        return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> 32) & mask_;
    }
    void place(uint64_t key, uint32_t value) noexcept {
        size_t i = slot_of(key);
        while (slots_[i].value) i = (i + 1) & mask_;
        slots_[i] = {key, value};
    }
    void grow() {
        std::vector<Slot> old(slots_.empty() ? first_slots_ : slots_.size() * 2);
        old.swap(slots_);
        mask_ = slots_.size() - 1;
        for (const Slot& s : old)
            if (s.value) place(s.key, s.value);
    }

    std::vector<Slot> slots_;
    size_t mask_ = 0, count_ = 0, first_slots_;
};

}  // namespace ringscope::ipt
