// Where the instruction flow decoder's events bind: to an IP (check_ip_event: before the
// instruction there) or to an instruction (check_insn_event: after it), as libipt 2.0.5's
// pt_insn_check_ip_event and pt_insn_check_insn_event, with the errata that move them (BDM64,
// SKD022, SKL014); and event(), which gives the pending event and applies it to the flow.
#include "ipt/errors.hpp"
#include "ipt/insn_decoder.hpp"

namespace ringscope::ipt {
namespace {

// libipt's bdm64_max_steps: how far an aborted transaction's branch may be followed.
constexpr int kBdm64MaxSteps = 0x100;

bool binds_to_pip(const DecodedInsn& i) noexcept {
    return i.kind == InsnKind::mov_cr3 || i.kind == InsnKind::vmlaunch || i.kind == InsnKind::vmresume ||
           is_far_branch(i);
}

bool binds_to_vmcs(const DecodedInsn& i) noexcept {
    return i.kind == InsnKind::vmptrld || i.kind == InsnKind::vmlaunch || i.kind == InsnKind::vmresume ||
           is_far_branch(i);
}

bool is_branch(const DecodedInsn& i) noexcept {
    return i.iclass != InsnClass::other && i.iclass != InsnClass::ptwrite && i.iclass != InsnClass::error;
}

// The instruction an Event Trace return (IRET, UIRET, VM entry) without IP binds to.
bool returns_as(EventKind kind, const DecodedInsn& i) noexcept {
    if (kind == EventKind::vmentry) return i.kind == InsnKind::vmlaunch || i.kind == InsnKind::vmresume;
    if (kind == EventKind::iret) return i.iclass == InsnClass::far_return;
    return is_branch(i) && !i.is_direct && i.iclass != InsnClass::cond_jump;
}

// Where the flow goes on only with the trace's answer: a conditional jump, a return (compressed
// or not), an indirect branch.
bool needs_trace(const DecodedInsn& i) noexcept {
    return i.iclass == InsnClass::cond_jump || i.iclass == InsnClass::ret ||
           (is_branch(i) && !i.is_direct && i.iclass != InsnClass::cond_jump);
}

}  // namespace

int InsnDecoder::event_pending() noexcept {
    if (process_event_) return 1;
    if (!(status_ & pts_event_pending)) return 0;
    int status = query_.event(event_);
    if (status < 0) {
        // libipt master reports an error in fetching its next event at its next step.
        if (master_ && query_.deferred()) {
            deferred_ = status;
            return 0;
        }
        return status;
    }
    if (master_) event_offset_ = query_.last_event_offset();
    event_.resumed = false;
    // An event that brings its IP from the trace is where TRIG counts instructions from.
    anchor_event_ = !event_.ip_suppressed || event_.type == EventKind::trig;
    process_event_ = true;
    status_ = status;
    return 1;
}

int InsnDecoder::range_is_contiguous(uint64_t begin, uint64_t end, int steps) const noexcept {
    Insn insn;
    insn.mode = mode_;
    insn.ip = begin;
    while (insn.ip != end) {
        if (!steps--) return 0;
        DecodedInsn iext;
        if (decode(insn, iext) < 0) return 0;
        if (next_ip(insn.ip, insn.ip, iext) < 0) return 0;
    }
    return 1;
}

int InsnDecoder::handle_erratum_bdm64(const Insn& insn, const DecodedInsn& iext) noexcept {
    // BDM64: an aborted transaction's TIP may be missing after a branch; if the abort's IP cannot
    // be reached from here, the branch went there.
    if (!event_.aborted || !is_branch(iext)) return 0;
    (void)insn;
    if (range_is_contiguous(ip_, event_.ip, kBdm64MaxSteps) > 0) return 0;
    ip_ = event_.ip;
    return 1;
}

int InsnDecoder::postpone_tsx(const Insn* insn, const DecodedInsn* iext) noexcept {
    if (event_.ip_suppressed) return 0;
    if (insn && iext && errata_.bdm64) {
        int status = handle_erratum_bdm64(*insn, *iext);
        if (status < 0) return status;
    }
    return ip_ != event_.ip ? 1 : 0;
}

int InsnDecoder::handle_erratum_skd022() noexcept {
    // SKD022: VMLAUNCH/VMRESUME that fail may disable tracing asynchronously at the instruction;
    // libipt makes it a synchronous disable, processed after the instruction.
    Insn insn;
    insn.mode = mode_;
    insn.ip = ip_;
    DecodedInsn iext;
    if (decode(insn, iext) < 0) return 0;
    if (iext.kind != InsnKind::vmlaunch && iext.kind != InsnKind::vmresume) return 0;
    event_.type = EventKind::disabled;
    return 1;
}

int InsnDecoder::check_ip_event(const Insn* insn, const DecodedInsn* iext) noexcept {
    int status = event_pending();
    if (status <= 0) return status < 0 ? status : status_flags(0);
    status = binds_at_ip(insn, iext);
    if (status < 0) return status;
    return status_flags(status ? pts_event_pending : 0);
}

// Whether the pending event binds here, at ip_ (before the instruction there): 1, else 0 (it
// binds later), or an error.
int InsnDecoder::binds_at_ip(const Insn* insn, const DecodedInsn* iext) noexcept {
    const QueryEvent& ev = event_;
    int status = 0;
    const bool at_ip = ev.ip_suppressed || ev.ip == ip_;
    // At the IP of the FUP it binds to, or now (without IP or tracing).
    const bool at_fup = ev.ip_suppressed || !enabled_ || ip_ == ev.ip;
    switch (ev.type) {
        case EventKind::disabled:
            return 0;
        case EventKind::enabled:
        case EventKind::overflow:
        case EventKind::stop:
        case EventKind::pwre:
        case EventKind::pwrx:
        case EventKind::tick:
        case EventKind::cbr:
        case EventKind::mnt:
            return 1;
        case EventKind::async_disabled:
            if (ev.from != ip_) return 0;
            if (errata_.skd022) {
                // SKD022 makes it a synchronous disable: after the instruction.
                status = handle_erratum_skd022();
                if (status < 0) return status;
                if (status) return 0;
            }
            return 1;
        case EventKind::tsx:
            status = postpone_tsx(insn, iext);
            if (status < 0) return status;
            return status ? 0 : 1;
        case EventKind::async_branch:
            return ev.from == ip_;
        case EventKind::exec_mode:
        case EventKind::iflags:
            // libipt master: without tracing there is no IP to wait for.
            return at_ip || (!enabled_ && master_);
        case EventKind::async_paging:
        case EventKind::async_vmcs:
            return at_ip;
        case EventKind::paging:
        case EventKind::vmcs:
        case EventKind::ptwrite:
            return !enabled_;
        case EventKind::exstop:
        case EventKind::mwait:
            return at_fup;
        case EventKind::trig:
            if (!ev.has_icnt) return at_fup;
            // After icnt instructions from the last IP the trace gave: there.
            if (enabled_ && since_anchor_ < ev.icnt) return 0;
            event_.ip = ip_;
            return 1;
        case EventKind::interrupt:
        case EventKind::smi:
        case EventKind::rsm:
        case EventKind::sipi:
        case EventKind::init:
        case EventKind::vmexit:
        case EventKind::shutdown:
        case EventKind::uintr:
        case EventKind::swintr:
        case EventKind::syscall:
        case EventKind::ignore:
            // At the IP they bind to, or now.
            return at_fup;
        case EventKind::iret:
        case EventKind::uiret:
        case EventKind::vmentry:
            // After their instruction (check_insn_event), or now without tracing.
            return !enabled_;
    }
    return 0;
}

int InsnDecoder::at_skl014(const Insn& insn, const DecodedInsn& iext) const noexcept {
    // SKL014: a disable without IP at a direct branch into a filtered-out range.
    if (!event_.ip_suppressed) return 0;
    if ((iext.iclass != InsnClass::call && iext.iclass != InsnClass::jump) || !iext.is_direct) return 0;
    uint64_t target = insn.ip + insn.size + static_cast<uint64_t>(static_cast<int64_t>(iext.displacement));
    return filter_.check(target) <= 0 ? 1 : 0;
}

int InsnDecoder::at_disabled_event(const Insn& insn, const DecodedInsn& iext) const noexcept {
    if (event_.ip_suppressed) {
        if (is_far_branch(iext) || iext.kind == InsnKind::changes_cpl || iext.kind == InsnKind::mov_cr3)
            return 1;
        // libipt master: an instruction that needs the trace to go on cannot have it (the disable
        // is next): tracing stopped there.
        if (master_ && needs_trace(iext)) return 1;
        // Without a filter configuration no filter was used: the erratum cannot apply.
        if (filter_.cfg && errata_.skl014 && at_skl014(insn, iext)) return 1;
        return 0;
    }
    switch (iext.iclass) {
        case InsnClass::other:
        case InsnClass::ptwrite:
            return 0;
        case InsnClass::call:
        case InsnClass::jump:
            // A direct branch elsewhere than the disable's IP is not where tracing stopped.
            if (iext.is_direct &&
                insn.ip + insn.size + static_cast<uint64_t>(static_cast<int64_t>(iext.displacement)) !=
                    event_.ip)
                return 0;
            return 1;
        case InsnClass::error:
            return -pte_bad_insn;
        default:
            return 1;
    }
}

int InsnDecoder::postpone(const Insn& insn, const DecodedInsn& iext) noexcept {
    if (!process_insn_) {
        process_insn_ = true;
        insn_ = insn;
        iext_ = iext;
    }
    return status_flags(pts_event_pending);
}

int InsnDecoder::check_insn_event(const Insn& insn, const DecodedInsn& iext) noexcept {
    int status = event_pending();
    if (status <= 0) return status;
    QueryEvent& ev = event_;
    switch (ev.type) {
        case EventKind::disabled: {
            status = at_disabled_event(insn, iext);
            if (status <= 0) return status;
            // Where tracing is expected to resume: after the instruction (the return address of
            // an indirect call).
            status = next_ip(ip_, insn.ip, iext);
            if (status < 0) {
                ip_ = 0;
                if (status != -pte_bad_query) return status;
                if (iext.iclass == InsnClass::call || iext.iclass == InsnClass::far_call)
                    ip_ = insn.ip + insn.size;
            }
            break;
        }
        case EventKind::paging:
            if (bound_paging_ || !binds_to_pip(iext)) return 0;
            bound_paging_ = true;
            return postpone(insn, iext);
        case EventKind::vmcs:
            if (bound_vmcs_ || !binds_to_vmcs(iext)) return 0;
            bound_vmcs_ = true;
            return postpone(insn, iext);
        case EventKind::iret:
        case EventKind::uiret:
        case EventKind::vmentry:
            // The instruction at the event's IP, else the next one of its kind.
            if (bound_return_) return 0;
            if (!ev.ip_suppressed ? ev.ip != insn.ip : !returns_as(ev.type, iext)) return 0;
            bound_return_ = true;
            return postpone(insn, iext);
        case EventKind::ptwrite:
            if (bound_ptwrite_) return 0;
            if (ev.ip_suppressed) {
                if (iext.iclass != InsnClass::ptwrite) return 0;
                // The payload means something at its PTWRITE: libipt 2.0.5 gives the event that
                // IP, master leaves it without.
                if (!master_) {
                    ev.ip = ip_;
                    ev.ip_suppressed = false;
                }
            } else if (ev.ip != ip_) {
                return 0;
            }
            bound_ptwrite_ = true;
            return postpone(insn, iext);
        default:
            // Only the events above bind to instructions.
            return 0;
    }
    return status_flags(pts_event_pending);
}

// What the pending event changes in the flow (its IP, whether tracing is on, the mode), or the
// error when it does not fit the flow's state.
int InsnDecoder::apply_event(QueryEvent& ev) noexcept {
    switch (ev.type) {
        case EventKind::enabled:
            // libipt master checks a PSB+ in the flow against its state.
            if (ev.status_update && master_) return enabled_ ? 0 : -pte_bad_status_update;
            if (ip_ == ev.ip) ev.resumed = true;
            if (ev.status_update) return -pte_bad_context;
            if (ev.ip_suppressed) return -pte_noip;
            if (enabled_) return -pte_bad_context;
            ip_ = ev.ip;
            enabled_ = true;
            return 0;
        case EventKind::async_disabled:
            if (!ev.ip_suppressed && ip_ != ev.from) return -pte_bad_query;
            [[fallthrough]];
        case EventKind::disabled:
            if (ev.status_update || !enabled_) return -pte_bad_context;
            // ip_ stays: tracing is expected to resume there.
            enabled_ = false;
            return 0;
        case EventKind::async_branch:
            if (ip_ != ev.from) return -pte_bad_query;
            if (ev.status_update || !enabled_) return -pte_bad_context;
            ip_ = ev.ip;
            return 0;
        case EventKind::async_paging:
        case EventKind::async_vmcs:
            if (!ev.ip_suppressed && ip_ != ev.ip) return -pte_bad_query;
            return 0;
        case EventKind::overflow:
            if (ev.status_update) return -pte_bad_context;
            if (ev.ip_suppressed) {
                enabled_ = false;
                ip_ = 0;
            } else {
                ip_ = ev.ip;
                enabled_ = true;
            }
            speculative_ = false;
            return 0;
        case EventKind::exec_mode:
            if (ev.status_update && enabled_ && mode_ != em_unknown && mode_ != ev.exec_mode)
                return -pte_bad_status_update;
            mode_ = static_cast<ExecMode>(ev.exec_mode);
            return 0;
        case EventKind::tsx:
            speculative_ = ev.speculative;
            return 0;
        case EventKind::stop:
            if (ev.status_update || enabled_) return -pte_bad_context;
            return 0;
        case EventKind::exstop:
        case EventKind::mwait:
            if (!ev.ip_suppressed && enabled_ && ip_ != ev.ip) return -pte_bad_query;
            return 0;
        default:
            return 0;
    }
}

int InsnDecoder::event(QueryEvent& out) noexcept {
    if (!process_event_) return -pte_bad_query;
    QueryEvent& ev = event_;
    if (disable_first_) {
        // A resync that meets an enable while tracing: tracing stopped somewhere before it.
        disable_first_ = false;
        enabled_ = false;
        out = QueryEvent{};
        out.type = EventKind::disabled;
        out.ip_suppressed = true;
        out.has_tsc = ev.has_tsc;
        out.tsc = ev.tsc;
        return status_flags(pts_event_pending);
    }
    int status = apply_event(ev);
    if (status < 0) return status;
    out = ev;
    process_event_ = false;
    if (anchor_event_) since_anchor_ = 0;
    if (resyncing_) return resync_step();
    // After an event bound to an instruction: the next event bound to it, or on past it.
    if (process_insn_) {
        status = check_insn_event(insn_, iext_);
        if (status != 0) {
            if (status < 0 || (status & pts_event_pending)) return status;
        }
        status = proceed_postponed();
        if (status < 0) return status;
    }
    return check_ip_event(nullptr, nullptr);
}

}  // namespace ringscope::ipt
