#include "ipt/flow_state.hpp"

namespace ringscope::ipt {
namespace {

void clear_time(QueryEvent& ev) {
    ev.has_tsc = false;
    ev.tsc = 0;
    ev.lost_mtc = ev.lost_cyc = 0;
}

}  // namespace

FlowState FlowState::of(const InsnDecoder& d, FlowCompare compare) {
    const bool with_time = compare.time;
    FlowState s;
    const QueryDecoder& q = d.query_;
    const QueryCore& c = *q.core_;
    uint64_t offset = 0;
    if (c.get_offset(offset) == 0) s.offset = offset;
    s.ip = d.ip_;
    Parts& p = s.parts;
    p.at_sync = c.pos_ && c.libipt_pos() == c.sync_;
    p.have_next = c.have_next_;
    p.next = p.have_next ? static_cast<uint8_t>(c.next_) : 0;
    p.last_ip = c.ip_;
    if (with_time) {
        p.time = c.time_;
        p.last_time = c.last_time_;
        if (compare.tcal) p.tcal = c.tcal_;
        // What time() reports (in a run across timing packets, the TNT packet's).
        p.have_tsc = q.time(p.tsc, nullptr, nullptr) == 0;
    }
    for (int b = 0; b < evb_max; ++b) {
        const EventQueue& e = c.evq_;
        for (uint8_t i = e.begin_[b]; i != e.end_[b]; i = EventQueue::inc(i)) {
            QueryEvent ev = e.queue_[b][i];
            if (!with_time) clear_time(ev);
            p.events[b].push_back(ev);
        }
    }
    p.core_enabled = c.enabled_;
    p.consume_packet = c.consume_packet_;
    p.run_size = c.run_size_;
    p.run_bits = p.run_size ? c.run_bits_ : 0;
    for (int k = 0; k < c.run_size_; ++k) {
        p.run.push_back(static_cast<uint64_t>(c.run_[k].next - c.config_.begin));
        p.run.push_back(c.run_[k].added_before);
        p.run.push_back(c.run_[k].gap);
    }
    // The times kept for the run's packets (each packet's time, as libipt would cache it).
    if (with_time && c.run_timed_ && c.run_size_) {
        for (int k = 0; k <= c.run_size_; ++k) {
            const TimeState& t = c.run_time_[k];
            p.run.insert(p.run.end(), {t.tsc, t.base, t.fc, t.ctc, t.ctc_cyc, t.lost_mtc, t.lost_cyc});
        }
    }
    // The front's bits: those left below index (the others are answered already).
    p.index = q.index_;
    p.tnt = q.index_ ? q.tnt_ & ((q.index_ << 1) - 1) : 0;
    p.empty_status = p.index ? q.empty_status_ : 0;
    p.mode = static_cast<uint8_t>(d.mode_);
    p.status = d.status_;
    p.enabled = d.enabled_;
    p.speculative = d.speculative_;
    p.process_event = d.process_event_;
    p.process_insn = d.process_insn_;
    p.bound_paging = d.bound_paging_;
    p.bound_vmcs = d.bound_vmcs_;
    p.bound_ptwrite = d.bound_ptwrite_;
    p.bound_return = d.bound_return_;
    // Read by a TRIG's instruction count only, but left in: the decoders agree on it from the
    // first IP after a PSB, and leaving it out needs a pass over the stream to rule TRIGs out.
    p.since_anchor = d.since_anchor_;
    p.anchor_event = d.anchor_event_;
    p.mode_exec_valid = c.mode_exec_valid_;
    p.iflag = c.iflag_;
    p.fup_taken = c.fup_taken_;
    p.exec_mode = c.exec_mode_;
    p.resyncing = d.resyncing_;
    p.disable_first = d.disable_first_;
    p.deferred = d.deferred_;
    p.query_deferred = c.deferred_;
    if (d.process_event_) {
        p.event = d.event_;
        if (!with_time) clear_time(p.event);
    }
    if (d.process_insn_) {
        p.insn = d.insn_;
        p.iext = d.iext_;
    }
    const int depth = d.retstack_.depth();
    s.retstack.reserve(static_cast<size_t>(depth));
    for (int i = 0; i < depth; ++i) s.retstack.push_back(d.retstack_.from_top(i));
    s.retstack_open = d.retstack_.is_open();
    return s;
}

bool FlowState::continued_by(const FlowState& fresh) const {
    if (offset != fresh.offset || ip != fresh.ip || !(parts == fresh.parts)) return false;
    if (fresh.retstack.size() > retstack.size()) return false;
    if (!fresh.retstack_open && fresh.retstack.size() != retstack.size()) return false;
    for (size_t i = 0; i < fresh.retstack.size(); ++i)
        if (fresh.retstack[i] != retstack[i]) return false;
    return true;
}

}  // namespace ringscope::ipt
