// The kernel stacks of one `report --profile` event line (trace-cmd's output_stacks): the
// kernel_stack events that followed the event, counted per distinct call chain with the times of the
// pairs they belong to, and printed as a tree from the innermost caller outwards. Each branch shows
// its share of the time (of the count when the pairs have no time) and its figures; a run of callers
// with a single child is printed as one list under its branch:
//
//   Event: sched_switch:S (12) Total: ... Avg: ... Max: ...(ts:...) Min:...(ts:...)
//             |
//             + schedule (0xffffffff81a2b3c4)
//             |   100% (12) time:... max:...(ts:...) min:...(ts:...) avg:...
//             |    do_nanosleep (0xffffffff81a2c5d6)
//
// The chains are compared and printed as trace-cmd does: the callers read as the traced kernel's
// longs in host order, a caller of all ones ends a chain, equal branches merge level by level.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>

#include <ringscope/context.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope::sched {

struct StackFigures {
    uint64_t count = 0, time = 0, min = 0, ts_min = 0, max = 0, ts_max = 0;
};

class StackSet {
  public:
    // One more occurrence of the chain `caller` (the bytes of kernel_stack's caller field up to the
    // end of the record) for a pair that took `time` ns; `ts` is the stack event's timestamp.
    void add(std::span<const uint8_t> caller, uint64_t time, uint64_t ts);
    // --by-comm: the chains of another task's line of the same event.
    void merge(const StackSet& other);
    bool empty() const noexcept { return stacks_.empty(); }
    void print(const TraceContext& ctx, TextBuffer& out) const;

  private:
    std::unordered_map<std::string, StackFigures> stacks_;  // by the caller bytes
};

}  // namespace ringscope::sched
