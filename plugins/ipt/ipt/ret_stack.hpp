// The return stack of the instruction flow decoder (InsnDecoder), with what ipt flow -j needs to
// hand entries on from one part's decoder to the next one's.
#pragma once

#include <cstdint>

#include "ipt/errors.hpp"

namespace ringscope::ipt {

// The last 64 return addresses of calls (libipt's pt_retstack). For ipt flow -j, a decoder that
// starts at a PSB does not know the calls before it: open() marks the stack's bottom as unknown
// (the entries of the decoder before, under these), until clear() or a push that fills it (the
// entries under would have gone). high() is the most entries it held since reset_high(), for
// assign_below: how many of those under it a full stack would have dropped.
class RetStack {
  public:
    static constexpr int kMax = 64;
    void clear() noexcept { top_ = bottom_ = 0, open_ = false; }
    // Entries from the top down (the most recent call first).
    int depth() const noexcept { return (top_ - bottom_ + kSize) % kSize; }
    uint64_t from_top(int i) const noexcept { return stack_[(top_ - 1 - i + 2 * kSize) % kSize]; }
    // hint: the caller's, given back by pop (InsnDecoder: where the return goes in its block
    // cache); 0 when none.
    void push(uint64_t ip, uint64_t hint = 0) noexcept {
        stack_[top_] = ip;
        hint_[top_] = hint;
        top_ = top_ + 1 == kSize ? 0 : top_ + 1;
        // Full: the oldest entry goes.
        if (top_ == bottom_) bottom_ = bottom_ + 1 == kSize ? 0 : bottom_ + 1;
        if (open_) note_push();
    }
    int pop(uint64_t& ip) noexcept;
    int pop(uint64_t& ip, uint64_t& hint) noexcept {
        if (top_ == bottom_) return -pte_retstack_empty;
        top_ = (top_ ? top_ : kSize) - 1;
        ip = stack_[top_];
        hint = hint_[top_];
        return 0;
    }

    void open() noexcept { open_ = true, high_ = depth(); }
    bool is_open() const noexcept { return open_; }
    // A pop would need an entry under the known ones.
    bool needs_below() const noexcept { return open_ && top_ == bottom_; }
    int high() const noexcept { return high_; }
    void reset_high() noexcept { high_ = depth(); }
    // Puts n entries (from the top down) under the current ones, as many as fit; the bottom is
    // then known.
    void assign_below(const uint64_t* from_top, int n) noexcept;

  private:
    // While open (a part of ipt flow -j, often all of it): inline, as it runs on every call.
    void note_push() noexcept {
        const int d = top_ >= bottom_ ? top_ - bottom_ : top_ + kSize - bottom_;
        if (d > high_) high_ = d;
        // Full of its own entries: none from under it would be left.
        if (d == kMax) open_ = false;
    }

    static constexpr int kSize = kMax + 1;
    uint64_t stack_[kSize] = {};
    uint64_t hint_[kSize] = {};  // push's hints (none for entries assign_below put)
    int top_ = 0, bottom_ = 0;
    bool open_ = false;
    int high_ = 0;
};

}  // namespace ringscope::ipt
