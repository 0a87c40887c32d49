// The instruction flow decoder's steps: from one instruction (next) or run of the block cache
// (next_block) to the next, the branches answered by the query decoder. Where events bind, and
// the events themselves, are in insn_events.cpp; next_path's walk in insn_walk.cpp; the resync
// after an error in insn_resync.cpp.
#include "ipt/insn_decoder.hpp"

#include "ipt/errors.hpp"

namespace ringscope::ipt {
namespace {

constexpr uint32_t kAddrCfgFilter = 1;

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

void run_of_insn(InsnRun& run, const Insn& insn) noexcept {
    run.ip = run.end_ip = insn.ip;
    run.ninsn = 1;
    run.cached = 0;
    run.sizes = &insn.size;
    run.end_class = insn.iclass;
    DecodedInsn iext;
    run.end_direct = decode_insn(iext, insn.raw, insn.size, insn.mode) == 0 && iext.is_direct;
    run.mode = insn.mode;
    run.speculative = insn.speculative;
}

int InsnDecoder::next_block(InsnRun& run) noexcept {
    run.ninsn = 0;
    run.cached = 0;
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
    run.cached = index;
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
