// InsnDecoder's way back after a decode error (ptxed's --resync-on-error, libipt master's
// pt_insn_resync and pt_blk_resync) and the offset it reports the error at.
#include "ipt/errors.hpp"
#include "ipt/insn_decoder.hpp"

namespace ringscope::ipt {

int InsnDecoder::resync() noexcept {
    process_insn_ = bound_paging_ = bound_vmcs_ = bound_ptwrite_ = bound_return_ = false;
    link_run_ = 0;
    resyncing_ = true;
    return resync_step();
}

// libipt master's resync as its expectations show it (the source is not at hand): the flow goes
// on from the next IP the trace gives. TNT bits on the way are dropped; a TIP gives its target;
// an event with an IP gives that IP and is then taken where it binds (an interrupt at its source
// IP); an enable while tracing comes after a disable; an event without IP is taken as it comes
// and the search goes on after it.
int InsnDecoder::resync_step() noexcept {
    // An error in the trace itself stays: master's resync reports it again.
    if (deferred_) return deferred_;
    for (;;) {
        int status = event_pending();
        if (status < 0) return status;
        if (status) return resync_at_event();
        if (status_ & pts_eos) {
            resyncing_ = false;
            return status_flags(0);
        }
        int taken = 0;
        status = query_.cond_branch(taken);
        if (status >= 0) {
            status_ = status;
            continue;
        }
        if (status != -pte_bad_query) return status;
        uint64_t ip = 0;
        status = query_.indirect_branch(ip);
        if (status < 0) return status;
        status_ = status;
        resyncing_ = false;
        if (status & pts_ip_suppressed) return -pte_noip;
        ip_ = ip;
        enabled_ = true;
        return check_ip_event(nullptr, nullptr);
    }
}

int InsnDecoder::resync_at_event() noexcept {
    const QueryEvent& ev = event_;
    switch (ev.type) {
        case EventKind::enabled:
            resyncing_ = false;
            if (ev.status_update) {
                if (ev.ip_suppressed) break;
                ip_ = ev.ip;
                enabled_ = true;
            } else if (enabled_) {
                disable_first_ = true;
            }
            return status_flags(pts_event_pending);
        case EventKind::async_branch:
            ip_ = ev.from;
            enabled_ = true;
            resyncing_ = false;
            return status_flags(pts_event_pending);
        case EventKind::async_disabled:
            ip_ = ev.from;
            [[fallthrough]];
        case EventKind::disabled:
        case EventKind::overflow:
            resyncing_ = false;
            return status_flags(pts_event_pending);
        default:
            if (ev.ip_suppressed) break;
            // Where it binds: on from there.
            ip_ = ev.ip;
            enabled_ = true;
            resyncing_ = false;
            return check_ip_event(nullptr, nullptr);
    }
    // Taken as it comes; event() goes on searching after it.
    return status_flags(pts_event_pending);
}

int InsnDecoder::error_offset(uint64_t& offset) const noexcept {
    if (!master_) return query_.get_offset(offset);
    // The event taken from the trace and not processed yet is master's next one.
    if (process_event_) {
        offset = event_offset_;
        return 0;
    }
    return query_.master_offset(offset);
}

}  // namespace ringscope::ipt
