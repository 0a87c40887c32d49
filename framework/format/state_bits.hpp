// The task-state bits of a sched_switch format, read from its print fmt: the mask its
// __print_flags(REC->prev_state & MASK, ...) applies, and the bit of `REC->prev_state & BIT ? "+"`
// that marks a preempted task (R+). Kernels differ: 1024, 2048, 4096, 0x1000 or an expression of
// the state constants ("(((0x0000 | 0x0001 | ...) + 1) << 1)").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ringscope::sched {

struct StateBits {
    std::optional<uint64_t> mask;     // the letters' mask
    std::optional<uint64_t> preempt;  // the "+" bit
};

StateBits state_bits_from_print_fmt(std::string_view print_fmt);

// A constant C expression as print fmts write them: decimal and hex numbers, ( ) | & ^ + - << >>.
// Stops at the first token that is not part of it (an unmatched ')', ',' or '?'); nullopt when
// nothing before it is an expression.
std::optional<uint64_t> eval_constant(std::string_view text);

}  // namespace ringscope::sched
