#include <ringscope/task_state.hpp>

#include "framework/format/state_bits.hpp"

namespace ringscope::sched {

TaskStateNames::TaskStateNames(const EventType* sched_switch) {
    if (!sched_switch) return;
    for (const auto& t : sched_switch->tables) {
        if (t.is_flags && t.field.find("prev_state") != std::string::npos && !t.entries.empty()) {
            table_ = &t;
            break;
        }
    }
    if (!table_) return;
    uint64_t highest = 0;
    for (const auto& [value, name] : table_->entries)
        if (value > highest) highest = value;
    // The kernel's TASK_REPORT_MAX is the bit above the last reported state: the mask below it
    // selects the states, the bit itself means "preempted while running" (R+). Where the print fmt
    // says otherwise (4.13 to 4.14 kernels put the bit higher), its own expressions win.
    preempt_bit_ = highest << 1;
    mask_ = preempt_bit_ - 1;
    const StateBits bits = state_bits_from_print_fmt(sched_switch->print_fmt);
    if (bits.mask && *bits.mask) mask_ = *bits.mask;
    if (bits.preempt && *bits.preempt) preempt_bit_ = *bits.preempt;
}

void TaskStateNames::append(uint64_t state, TextBuffer& out, bool mark_preempted) const {
    if (!table_) {
        static constexpr char kLegacy[] = "SDTtZXxW";
        bool found = false;
        for (unsigned i = 0; i < sizeof kLegacy - 1; ++i) {
            if (!(state & (1ull << i))) continue;
            if (found) out.push_back('|');
            found = true;
            out.push_back(kLegacy[i]);
        }
        if (!found) out.push_back('R');
        return;
    }
    uint64_t bits = state & mask_;
    if (!bits) {
        out.push_back('R');
    } else {
        // __print_flags: table order, each matching entry once, then any rest in hex.
        bool first = true;
        for (const auto& [value, name] : table_->entries) {
            if (value == 0 || (bits & value) != value) continue;
            if (!first) out.append(table_->delimiter);
            first = false;
            out.append(name);
            bits &= ~value;
        }
        if (bits) {
            if (!first) out.append(table_->delimiter);
            out.appendf("0x%llx", static_cast<unsigned long long>(bits));
        }
    }
    if (mark_preempted && (state & preempt_bit_)) out.push_back('+');
}

}  // namespace ringscope::sched
