// The query decoder's synchronization: start() at a PSB, sync forward and backward over the PSBs,
// sync at an offset, and the offsets it reports.
#include "ipt/errors.hpp"
#include "ipt/psb_search.hpp"
#include "ipt/query_decoder.hpp"

namespace ringscope::ipt {

int QueryCore::start_at(const uint8_t* pos, uint64_t* addr) noexcept {
    reset();
    sync_ = pos;
    pos_ = pos;
    int status = fetch();
    if (status) return status;
    if (next_ != PacketKind::psb) return -pte_nosync;
    status = decode(next_);
    if (status < 0) return status;
    // Take the start address before reading ahead: an adjacent PSB+ may change the IP.
    if (addr) {
        if (ip_.query(addr) == 0) addr = nullptr;
    }
    status = read_ahead();
    if (status < 0) return status;
    int flags = status_flags();
    if (ip_.query(addr) < 0 && addr) flags |= pts_ip_suppressed;
    return flags;
}

int QueryCore::sync_forward(uint64_t* ip) noexcept {
    const uint8_t* pos = pos_ ? libipt_pos() : config_.begin;
    const uint8_t* sync = sync_;
    if (pos == sync) pos += kPsbSize;
    int status = ipt::sync_forward(&sync, pos, config_, false);
    sync_work_ += static_cast<uint64_t>((status < 0 ? config_.end : sync + kPsbSize) - pos);
    if (status < 0) return status;
    return start(sync, ip);
}

// Backward visits the PSBs forward visits, in reverse order, errors included (libipt 2.0.5 searches
// from where the decoder stopped, so after a PSB+ that failed past its PSBEND it finds that PSB
// again, and loops forever on back-to-back PSBs cut by the end). Forward goes from each PSB to the
// first PSB above where start() there stopped; it stops at a PSB whose segment runs into the end
// (pte_eos), and passes over PSBs that a segment decodes in line. So a PSB c is visited when its
// segment does not run into the end and the forward step from the PSB below it lands on it.
int QueryCore::sync_backward(uint64_t* ip) noexcept {
    // Below the current PSB; below the current position once queries have moved on from it (as
    // libipt: the PSB of the segment being decoded comes first).
    const uint8_t* from = config_.end;
    const uint8_t* above = nullptr;
    Outcome at_above{0, nullptr};
    if (pos_ && (!sync_ || libipt_pos() != after_sync_)) {
        from = libipt_pos();
    } else if (pos_) {
        from = above = sync_;
        at_above = {sync_status_, after_sync_};
    }
    const uint8_t* c = nullptr;
    if (psb_before(&c, from, config_, &sync_work_) < 0) return backward_eos();
    Outcome at_c = probe(c, above, at_above);
    for (;;) {
        const uint8_t* b = nullptr;
        const bool have_b = psb_before(&b, c, config_, &sync_work_) == 0;
        Outcome at_b{0, nullptr};
        if (have_b) at_b = probe(b, c, at_c);
        if (at_c.status != -pte_eos && (!have_b || forward_lands_on(b, at_b, c))) return start(c, ip);
        if (!have_b) return backward_eos();
        c = b;
        at_c = at_b;
    }
}

QueryCore::Outcome QueryCore::probe(const uint8_t* psb, const uint8_t* stop,
                                    const Outcome& at_stop) noexcept {
    // Where the PSB+ at stop failed on its own, in line it may not (its header can depend on the
    // packets before it): decode on without stopping.
    probe_stop_ = at_stop.status < 0 && at_stop.after == stop ? nullptr : stop;
    int status = start(psb, nullptr);
    probe_stop_ = nullptr;
    // The PSB+ at stop decoded in line: from there on, decoding goes as start() there went.
    if (status == kProbeStopped) return at_stop;
    return {status, after_sync_};
}

bool QueryCore::forward_lands_on(const uint8_t* psb, const Outcome& o, const uint8_t* next) noexcept {
    if (o.status == -pte_eos) return false;
    const uint8_t* from = o.after == psb ? psb + kPsbSize : o.after;
    if (from >= next + kPsbSize) return false;
    // Nothing between psb and next is a PSB: a search that ends with next's run is enough.
    Config upto = config_;
    upto.end = next + kPsbSize;
    const uint8_t* found = nullptr;
    sync_work_ += static_cast<uint64_t>(upto.end - from);
    return ipt::sync_forward(&found, from, upto, false) == 0 && found == next;
}

int QueryCore::backward_eos() noexcept {
    // Before the first PSB: sync backward keeps answering pte_eos, sync forward starts from the
    // beginning.
    reset();
    have_next_ = false;
    sync_ = nullptr;
    pos_ = config_.begin;
    after_sync_ = nullptr;
    return -pte_eos;
}

int QueryCore::sync_set(uint64_t* ip, uint64_t offset) noexcept {
    const uint8_t* sync = nullptr;
    if (static_cast<uint64_t>(config_.end - config_.begin) < offset) return -pte_eos;
    int status = ipt::sync_set(&sync, config_.begin + offset, config_);
    if (status < 0) return status;
    return start(sync, ip);
}

int QueryCore::get_offset(uint64_t& offset) const noexcept {
    if (!pos_) return -pte_nosync;
    offset = static_cast<uint64_t>(libipt_pos() - config_.begin);
    return 0;
}

int QueryCore::get_sync_offset(uint64_t& offset) const noexcept {
    if (!sync_) return -pte_nosync;
    offset = static_cast<uint64_t>(sync_ - config_.begin);
    return 0;
}

}  // namespace ringscope::ipt
