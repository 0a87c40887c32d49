#include "ipt/insn_decoder.hpp"

#include <cstring>

#include "ipt/errors.hpp"

namespace ringscope::ipt {
namespace {

// libipt's bdm64_max_steps: how far an aborted transaction's branch may be followed.
constexpr int kBdm64MaxSteps = 0x100;
constexpr uint32_t kAddrCfgFilter = 1;

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

// Where the flow goes on only with the trace's answer: a conditional jump, a return (compressed
// or not), an indirect branch.
// The instruction an Event Trace return (IRET, UIRET, VM entry) without IP binds to.
bool returns_as(EventKind kind, const DecodedInsn& i) noexcept {
    if (kind == EventKind::vmentry) return i.kind == InsnKind::vmlaunch || i.kind == InsnKind::vmresume;
    if (kind == EventKind::iret) return i.iclass == InsnClass::far_return;
    return is_branch(i) && !i.is_direct && i.iclass != InsnClass::cond_jump;
}

bool needs_trace(const DecodedInsn& i) noexcept {
    return i.iclass == InsnClass::cond_jump || i.iclass == InsnClass::ret ||
           (is_branch(i) && !i.is_direct && i.iclass != InsnClass::cond_jump);
}

}  // namespace

int AddrFilter::check(uint64_t ip) const noexcept {
    bool any = false;
    for (int n = 0; n < 4; ++n) {
        if (((cfg >> (4 * n)) & 0xf) != kAddrCfgFilter) continue;
        any = true;
        if (a[n] <= ip && ip <= b[n]) return 1;
    }
    return any ? 0 : 1;
}

InsnDecoder::InsnDecoder(const Config& config, const Image& image, const AddrFilter& filter)
    : query_(config),
      image_(image),
      filter_(filter),
      errata_(config.errata),
      master_(config.packets == PacketSet::full) {
    reset();
}

void InsnDecoder::reset() noexcept {
    mode_ = em_unknown;
    ip_ = 0;
    status_ = 0;
    enabled_ = speculative_ = process_event_ = process_insn_ = resyncing_ = disable_first_ = false;
    deferred_ = 0;
    since_anchor_ = 0;
    anchor_event_ = false;
    bound_paging_ = bound_vmcs_ = bound_ptwrite_ = bound_return_ = false;
    retstack_.clear();
}

int InsnDecoder::status_flags(int flags) const noexcept {
    if (!enabled_) flags |= pts_ip_suppressed;
    // The end of the trace waits until the events are processed.
    if ((status_ & pts_eos) && !process_event_) flags |= pts_eos;
    return flags;
}

int InsnDecoder::start(int status) noexcept {
    if (status < 0) return status;
    status_ = status;
    if (!(status & pts_ip_suppressed)) enabled_ = true;
    // Events before the first instruction.
    return check_ip_event(nullptr, nullptr);
}

int InsnDecoder::sync_forward() noexcept {
    reset();
    return start(query_.sync_forward(&ip_));
}

int InsnDecoder::sync_set(uint64_t offset) noexcept {
    reset();
    return start(query_.sync_set(&ip_, offset));
}

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

int InsnDecoder::decode(Insn& insn, DecodedInsn& iext) const noexcept {
    int size = image_.read(insn.ip, insn.raw, sizeof insn.raw, &insn.isid);
    if (size < 0) return size;
    insn.size = static_cast<uint8_t>(size);
    int status = decode_insn(iext, insn.raw, static_cast<size_t>(size), insn.mode);
    if (status < 0) return status;
    insn.size = iext.size;
    insn.iclass = iext.iclass;
    return 0;
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
    const QueryEvent& ev = event_;
    const bool at_ip = ev.ip_suppressed || ev.ip == ip_;
    switch (ev.type) {
        case EventKind::disabled:
            break;
        case EventKind::enabled:
        case EventKind::overflow:
        case EventKind::stop:
        case EventKind::pwre:
        case EventKind::pwrx:
        case EventKind::tick:
        case EventKind::cbr:
        case EventKind::mnt:
            return status_flags(pts_event_pending);
        case EventKind::async_disabled:
            if (ev.from != ip_) break;
            if (errata_.skd022) {
                status = handle_erratum_skd022();
                if (status < 0) return status;
                if (status) return check_ip_event(insn, iext);
            }
            return status_flags(pts_event_pending);
        case EventKind::tsx:
            status = postpone_tsx(insn, iext);
            if (status < 0) return status;
            if (status) break;
            return status_flags(pts_event_pending);
        case EventKind::async_branch:
            if (ev.from != ip_) break;
            return status_flags(pts_event_pending);
        case EventKind::exec_mode:
        case EventKind::iflags:
            // libipt master: without tracing there is no IP to wait for.
            if (!at_ip && (enabled_ || !master_)) break;
            return status_flags(pts_event_pending);
        case EventKind::async_paging:
        case EventKind::async_vmcs:
            if (!at_ip) break;
            return status_flags(pts_event_pending);
        case EventKind::paging:
        case EventKind::vmcs:
        case EventKind::ptwrite:
            if (enabled_) break;
            return status_flags(pts_event_pending);
        case EventKind::exstop:
        case EventKind::mwait:
            if (!ev.ip_suppressed && enabled_ && ip_ != ev.ip) break;
            return status_flags(pts_event_pending);
        case EventKind::trig:
            if (!ev.has_icnt) {
                // At its FUP's IP, or now.
                if (!ev.ip_suppressed && enabled_ && ip_ != ev.ip) break;
                return status_flags(pts_event_pending);
            }
            // After icnt instructions from the last IP the trace gave: there.
            if (enabled_ && since_anchor_ < ev.icnt) break;
            event_.ip = ip_;
            return status_flags(pts_event_pending);
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
            if (!ev.ip_suppressed && enabled_ && ip_ != ev.ip) break;
            return status_flags(pts_event_pending);
        case EventKind::iret:
        case EventKind::uiret:
        case EventKind::vmentry:
            // After their instruction (check_insn_event), or now without tracing.
            if (enabled_) break;
            return status_flags(pts_event_pending);
    }
    return status_flags(0);
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

int InsnDecoder::tick(uint64_t ip) noexcept {
    // An event in progress carries its own time (and there is no room for a second one).
    if (process_event_) return 0;
    uint64_t tsc = 0;
    uint32_t lost_mtc = 0, lost_cyc = 0;
    const int status = query_.time(tsc, &lost_mtc, &lost_cyc);
    if (status < 0 && status != -pte_no_time) return status;
    if (tsc == event_.tsc) return 0;
    event_ = QueryEvent{};
    event_.type = EventKind::tick;
    event_.ip = ip;
    // Without wall-clock time the time is relative.
    event_.has_tsc = status != -pte_no_time;
    event_.tsc = tsc;
    event_.lost_mtc = lost_mtc;
    event_.lost_cyc = lost_cyc;
    process_event_ = true;
    return 0;
}

int InsnDecoder::proceed(const Insn& insn, const DecodedInsn& iext) noexcept {
    ip_ += insn.size;
    ++since_anchor_;
    switch (iext.iclass) {
        case InsnClass::other:
        case InsnClass::ptwrite:
            return 0;
        case InsnClass::cond_jump: {
            int taken = 0;
            int status = query_.cond_branch(taken);
            if (status < 0) return status;
            status_ = status;
            since_anchor_ = 0;
            if (tick_events_ && (status = tick(ip_)) < 0) return status;
            if (!taken) return 0;
            break;
        }
        case InsnClass::call:
            // A call to the next instruction (position-independent code) does not return.
            if (iext.displacement || !iext.is_direct) retstack_.push(ip_);
            break;
        case InsnClass::ret: {
            // A compressed return is a taken conditional branch; anything else, a TIP.
            int taken = 0;
            int status = query_.cond_branch(taken);
            if (status >= 0) {
                status_ = status;
                since_anchor_ = 0;
                if (tick_events_ && (status = tick(ip_)) < 0) return status;
                if (!taken) return -pte_bad_retcomp;
                // ipt flow -j: the address is under the entries known; resume() pops it.
                if (retstack_.needs_below()) [[unlikely]] {
                    ret_ = insn;
                    ret_iext_ = iext;
                    return kNeedsStack;
                }
                return retstack_.pop(ip_);
            }
            break;
        }
        case InsnClass::error:
            return -pte_bad_insn;
        default:
            break;
    }
    if (iext.is_direct) {
        ip_ += static_cast<uint64_t>(static_cast<int64_t>(iext.displacement));
        return 0;
    }
    const uint64_t from = ip_;
    int status = query_.indirect_branch(ip_);
    if (status < 0) return status;
    status_ = status;
    since_anchor_ = 0;
    if (tick_events_ && (status = tick(from)) < 0) return status;
    if (status_ & pts_ip_suppressed) return -pte_noip;
    return 0;
}

int InsnDecoder::proceed_postponed() noexcept {
    if (!process_insn_) return -pte_internal;
    int status = 0;
    // Nothing to do when tracing was disabled.
    if (enabled_) status = proceed(insn_, iext_);
    if (status < 0) return status;
    process_insn_ = bound_paging_ = bound_vmcs_ = bound_ptwrite_ = bound_return_ = false;
    return 0;
}

int InsnDecoder::resume() noexcept {
    // The compressed return's pop, then on as its caller would have gone on.
    const int status = retstack_.pop(ip_);
    // From event() (proceed_postponed): the instruction its events were bound to.
    if (process_insn_) {
        if (status < 0) return status;
        process_insn_ = bound_paging_ = bound_vmcs_ = bound_ptwrite_ = bound_return_ = false;
        return check_ip_event(nullptr, nullptr);
    }
    // From next(), next_block() or next_path(): their last instruction.
    link_slot_ = ip_ == ret_.ip + ret_.size ? 0 : 1;
    if (status < 0) return status;
    return check_ip_event(&ret_, &ret_iext_);
}

int InsnDecoder::next(Insn& insn) noexcept {
    if (!enabled_) return (status_ & pts_eos) ? -pte_eos : -pte_no_enable;
    insn = Insn{};
    insn.mode = mode_;
    insn.ip = ip_;
    insn.speculative = speculative_;
    if (deferred_) return deferred_;
    DecodedInsn iext;
    int status = decode(insn, iext);
    if (status < 0) {
        insn.iclass = InsnClass::error;
        return status;
    }
    status = check_insn_event(insn, iext);
    if (status != 0) {
        if (status < 0 || (status & pts_event_pending)) return status;
    }
    status = proceed(insn, iext);
    if (status < 0) return status;
    return check_ip_event(&insn, &iext);
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
    switch (ev.type) {
        case EventKind::enabled:
            if (ev.status_update && master_) {
                // libipt master checks a PSB+ in the flow against its state.
                if (!enabled_) return -pte_bad_status_update;
                break;
            }
            if (ip_ == ev.ip) ev.resumed = true;
            if (ev.status_update) return -pte_bad_context;
            if (ev.ip_suppressed) return -pte_noip;
            if (enabled_) return -pte_bad_context;
            ip_ = ev.ip;
            enabled_ = true;
            break;
        case EventKind::async_disabled:
            if (!ev.ip_suppressed && ip_ != ev.from) return -pte_bad_query;
            [[fallthrough]];
        case EventKind::disabled:
            if (ev.status_update || !enabled_) return -pte_bad_context;
            // ip_ stays: tracing is expected to resume there.
            enabled_ = false;
            break;
        case EventKind::async_branch:
            if (ip_ != ev.from) return -pte_bad_query;
            if (ev.status_update || !enabled_) return -pte_bad_context;
            ip_ = ev.ip;
            break;
        case EventKind::async_paging:
        case EventKind::async_vmcs:
            if (!ev.ip_suppressed && ip_ != ev.ip) return -pte_bad_query;
            break;
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
            break;
        case EventKind::exec_mode:
            if (ev.status_update && enabled_ && mode_ != em_unknown && mode_ != ev.exec_mode)
                return -pte_bad_status_update;
            mode_ = static_cast<ExecMode>(ev.exec_mode);
            break;
        case EventKind::tsx:
            speculative_ = ev.speculative;
            break;
        case EventKind::stop:
            if (ev.status_update || enabled_) return -pte_bad_context;
            break;
        case EventKind::exstop:
        case EventKind::mwait:
            if (!ev.ip_suppressed && enabled_ && ip_ != ev.ip) return -pte_bad_query;
            break;
        default:
            break;
    }
    out = ev;
    process_event_ = false;
    if (anchor_event_) since_anchor_ = 0;
    if (resyncing_) return resync_step();
    // After an event bound to an instruction: the next event bound to it, or on past it.
    if (process_insn_) {
        int status = check_insn_event(insn_, iext_);
        if (status != 0) {
            if (status < 0 || (status & pts_event_pending)) return status;
        }
        status = proceed_postponed();
        if (status < 0) return status;
    }
    return check_ip_event(nullptr, nullptr);
}

void run_of_insn(InsnRun& run, const Insn& insn) noexcept {
    run.ip = run.end_ip = insn.ip;
    run.ninsn = 1;
    run.sizes = &insn.size;
    run.end_class = insn.iclass;
    DecodedInsn iext;
    run.end_direct = decode_insn(iext, insn.raw, insn.size, insn.mode) == 0 && iext.is_direct;
    run.mode = insn.mode;
    run.speculative = insn.speculative;
}

int InsnDecoder::next_block(InsnRun& run) noexcept {
    run.ninsn = 0;
    // Events bind to instructions and IPs: one instruction at a time while one is pending.
    if (!enabled_ || process_event_ || process_insn_ || (status_ & pts_event_pending)) {
        link_run_ = 0;
        one_ = Insn{};
        const int status = next(one_);
        // With no instruction, where it was looked for (for the error's report).
        run.ip = run.end_ip = one_.ip;
        if (one_.iclass != InsnClass::error) run_of_insn(run, one_);
        return status;
    }
    uint32_t index = 0;
    if (link_run_ && link_generation_ == cache_.generation()) {
        index = cache_.at(link_run_).next[link_slot_];
        if (index && (cache_.at(index).ip != ip_ || cache_.at(index).mode != mode_)) index = 0;
    }
    if (!index) {
        // Nothing decodes here: next() reports it.
        if (!cache_.find(image_, ip_, static_cast<uint8_t>(mode_), &index)) {
            link_run_ = 0;
            Insn insn;
            const int status = next(insn);
            run.ip = run.end_ip = insn.ip;
            return status;
        }
        if (link_run_ && link_generation_ == cache_.generation())
            cache_.at(link_run_).next[link_slot_] = index;
    }
    const CachedRun& c = cache_.at(index);
    run.ip = c.ip;
    run.end_ip = c.end_ip;
    run.ninsn = c.ninsn;
    run.sizes = cache_.sizes(c);
    run.end_class = c.last.iclass;
    run.end_direct = c.last.is_direct;
    run.mode = mode_;
    run.speculative = speculative_;
    link_run_ = index;
    link_generation_ = cache_.generation();
    if (!c.ends_in_branch) {
        link_slot_ = 0;
        ip_ = c.end_ip + c.last.size;
        return status_flags(0);
    }
    Insn last;
    last.ip = ip_ = c.end_ip;
    last.size = c.last.size;
    const DecodedInsn iext = c.last;
    const int status = proceed(last, iext);
    // A branch not taken falls through; anything else goes elsewhere.
    link_slot_ = ip_ == last.ip + last.size ? 0 : 1;
    if (status < 0) return status;
    return check_ip_event(&last, &iext);
}

}  // namespace ringscope::ipt
