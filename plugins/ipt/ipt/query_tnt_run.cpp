// The query decoder's TNT run: the bits of several TNT packets cached at once, across the timing
// packets between them, and libipt's state while any of them is being answered.
//
// libipt caches one TNT packet per query that finds the cache empty, and then reads ahead to the
// next packet a query needs. When TNTs follow each other, with nothing but PAD, MTC and CYC
// packets between them, that read-ahead only skips the PADs and applies the timing packets to the
// time and its calibration. Caching such a run at once then differs from libipt in the position,
// which libipt_pos() reports as libipt would, in the time a query reports, which query_time()
// takes from the time kept when libipt would have cached each packet, and in what queries other
// than cond_branch see: they first go back to libipt's state (leave_tnt_run). The run's last
// packet is followed by a TNT or a TIP, or by timing packets and then one of those, which its
// own read-ahead (read_ahead_after_query) then decodes without error: nothing that libipt reads
// ahead to later, and could fail on, is read earlier.
#include "ipt/errors.hpp"
#include "ipt/query_decoder.hpp"

namespace ringscope::ipt {
namespace {

bool is_tnt(PacketKind kind) noexcept {
    return kind == PacketKind::tnt_8 || kind == PacketKind::tnt_64;
}

}  // namespace

const uint8_t* QueryCore::skip_timing_slow(const uint8_t* pos) const noexcept {
    const uint8_t* const from = pos;
    for (;;) {
        if (config_.end - pos < 16 || pos - from > UINT8_MAX - 16) return nullptr;
        const PacketKind kind = peek_kind(pos);
        if (kind == PacketKind::pad) {
            pos += kPadSize;
        } else if (kind == PacketKind::mtc || kind == PacketKind::cyc) {
            Packet packet;
            const int size = read_packet_kind(packet, kind, pos, config_);
            if (size <= 0) return nullptr;
            pos += size;
        } else {
            return pos;
        }
    }
}

bool QueryCore::cross_timing(int n, const uint8_t* to) noexcept {
    if (!run_timed_) {
        for (int k = 0; k <= n; ++k) {
            run_time_[k] = time_;
            run_tcal_[k] = tcal_;
        }
        run_timed_ = true;
    }
    const uint8_t* const from = pos_;
    int status = 0;
    // As read_ahead takes them.
    while (!status && pos_ < to) {
        const PacketKind kind = peek_kind(pos_);
        if (kind == PacketKind::pad)
            pos_ += kPadSize;
        else if (kind == PacketKind::mtc)
            status = decode_mtc();
        else if (kind == PacketKind::cyc)
            status = decode_cyc();
        else
            status = -pte_internal;  // after SKD007's partial CYC
    }
    if (!status && pos_ == to) return true;
    time_ = run_time_[n];
    tcal_ = run_tcal_[n];
    pos_ = from;
    return false;
}

void QueryCore::drop_run_packet(int& n, unsigned& added, unsigned& used) noexcept {
    const RunEntry& e = run_[n - 1];
    const unsigned bits = added - e.added_before;
    tnt_.tnt >>= bits;
    tnt_.index >>= bits;
    used -= bits;
    added = e.added_before;
    pos_ = e.next - e.gap;
    if (run_timed_) {
        time_ = run_time_[n - 1];
        tcal_ = run_tcal_[n - 1];
    }
    --n;
}

void QueryCore::cache_tnt_run() noexcept {
    unsigned used = 64 - static_cast<unsigned>(__builtin_clzll(tnt_.index));
    unsigned added = 0;
    int n = 0;
    run_timed_ = false;
    // Where the next TNT would start: past the timing packets after the last one.
    const uint8_t* at = skip_timing(pos_);
    while (n < kMaxRun - 1 && at) {
        PacketTnt tnt;
        const int size = read_tnt_fast(tnt, peek_kind(at), at);
        if (!size || used + tnt.bit_size > 64) break;
        const uint8_t* const after = skip_timing(at + size);
        const PacketKind next = after ? peek_kind(after) : PacketKind::bad;
        if (!is_tnt(next) && next != PacketKind::tip) break;
        if (at != pos_ && !cross_timing(n, at)) break;
        // Neither empty nor past 64 bits: no need for TntCache::add's checks.
        tnt_.tnt = tnt_.tnt << tnt.bit_size | tnt.payload;
        tnt_.index <<= tnt.bit_size;
        used += tnt.bit_size;
        run_[n] = RunEntry{at, static_cast<uint8_t>(added), static_cast<uint8_t>(at - pos_)};
        added += tnt.bit_size;
        ++n;
        pos_ = at + size;
        at = after;
        if (run_timed_) {
            run_time_[n] = time_;
            run_tcal_[n] = tcal_;
        }
    }
    // The timing packets after the last packet, which the read-ahead after it decodes, must
    // decode there (libipt fails on them only once it caches that packet). The times kept then
    // take the run back to before them too.
    const uint8_t* const tail = n ? at : pos_;
    if (tail != pos_) {
        const uint8_t* const end = pos_;
        if (cross_timing(n, tail)) {
            pos_ = end;
            time_ = run_time_[n];
            tcal_ = run_tcal_[n];
        } else {
            drop_run_packet(n, added, used);
        }
    }
    run_bits_ = static_cast<uint8_t>(added);
    run_size_ = static_cast<uint8_t>(n);
}

unsigned QueryCore::bits_at_this_time() const noexcept {
    int k = tnt_run_packet();
    if (k < 0) return 64;
    // A bit of packet m reports run_time_[m + 1] (the last packet's: last_time_); the bits left of
    // packet k - 1 report run_time_[k], the time now.
    const uint64_t now = run_time_[k].tsc;
    while (k < run_size_ && (k + 1 < run_size_ ? run_time_[k + 1] : last_time_).tsc == now) ++k;
    const unsigned below = k < run_size_ ? run_below(k) : 0;
    return static_cast<unsigned>(__builtin_ctzll(tnt_.index)) + 1 - below;
}

// Back to where libipt is: only the bits of the TNT packet being answered are cached, the next
// packet is the TNT after it, and the time and calibration are those after the timing packets
// between the two. Nothing else differs.
void QueryCore::leave_tnt_run() noexcept {
    int k = tnt_run_packet();
    if (k >= 0) {
        unsigned below = run_below(k);
        tnt_.tnt >>= below;
        tnt_.index >>= below;
        pos_ = run_[k].next;
        next_ = peek_kind(pos_);
        have_next_ = true;
        if (run_timed_) {
            last_time_ = run_time_[k];
            time_ = run_time_[k + 1];
            tcal_ = run_tcal_[k + 1];
        }
    }
    run_size_ = 0;
}

}  // namespace ringscope::ipt
