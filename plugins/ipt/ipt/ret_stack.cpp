#include "ipt/ret_stack.hpp"

#include "ipt/errors.hpp"

namespace ringscope::ipt {

void RetStack::assign_below(const uint64_t* from_top_entries, int n) noexcept {
    // All entries from the top down, then laid out again from slot 0 up.
    uint64_t all[kMax];
    int count = depth();
    for (int i = 0; i < count; ++i) all[i] = from_top(i);
    for (int i = 0; i < n && count < kMax; ++i) all[count++] = from_top_entries[i];
    for (int i = 0; i < count; ++i) stack_[i] = all[count - 1 - i], hint_[i] = 0;
    bottom_ = 0;
    top_ = count;
    open_ = false;
}

int RetStack::pop(uint64_t& ip) noexcept {
    if (top_ == bottom_) return -pte_retstack_empty;
    top_ = (top_ ? top_ : kSize) - 1;
    ip = stack_[top_];
    return 0;
}

}  // namespace ringscope::ipt
