// The letters of a task state (sched_switch prev_state), taken from the event's own print fmt
// table (__print_flags of prev_state) so they stay right on every kernel; libtraceevent's fixed
// table ("SDTtZXxW") only when the format has none or the user asks for it (-O sched:legacy_states).
// The sched plugin's printer and the SQLite output both use it.
#pragma once

#include <cstdint>

#include <ringscope/event_type.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope::sched {

class TaskStateNames {
  public:
    // Looks up the prev_state flags table of a sched_switch type (nullptr/no table = fallback).
    explicit TaskStateNames(const EventType* sched_switch);

    // As the kernel prints it: the flags within the report mask joined by '|', "R" when none,
    // then "+" when the preemption bit above the mask is set (and `mark_preempted`).
    void append(uint64_t state, TextBuffer& out, bool mark_preempted = true) const;
    bool from_format() const noexcept { return table_ != nullptr; }
    // R or R+: the task was preempted, not going to sleep.
    bool is_running(uint64_t state) const noexcept { return (state & (table_ ? mask_ : 0xffu)) == 0; }

  private:
    const ValueTable* table_ = nullptr;
    uint64_t mask_ = 0;
    uint64_t preempt_bit_ = 0;
};

}  // namespace ringscope::sched
