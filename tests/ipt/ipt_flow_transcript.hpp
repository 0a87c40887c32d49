// What ptxed's loop over InsnDecoder gives, as numbers: each instruction's address, each event's
// kind, IP and status, each status and each stop (a tag in the top bits), for comparing
// next(), next_block() and next_path() with each other (ipt_flow_path_test.cpp, fuzz_ipt_flow.cpp).
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ipt/errors.hpp"
#include "ipt/insn_decoder.hpp"

namespace ipt_flow_transcript {

namespace ri = ringscope::ipt;

enum class Call { next, block, path };

struct Transcript {
    std::vector<uint64_t> items;
    uint64_t insn = 0;
    bool cut = false;  // stopped at Limits::max_insn: only a prefix of another one's
};

inline constexpr uint64_t kEvent = uint64_t{1} << 60, kStatus = uint64_t{2} << 60, kStop = uint64_t{3} << 60,
                          kSynced = uint64_t{4} << 60, kError = uint64_t{5} << 60, kMark = uint64_t{6} << 60,
                          kResync = uint64_t{7} << 60;

inline void item(Transcript& t, uint64_t tag, int64_t value) {
    t.items.push_back(tag | (static_cast<uint64_t>(value) & 0xfffffffffffffffULL));
}

inline void insns(Transcript& t, uint64_t ip, uint32_t n, const uint8_t* sizes) {
    for (uint32_t k = 0; k < n; ip += sizes[k++]) t.items.push_back(ip);
    t.insn += n;
}

inline size_t count(const Transcript& t, uint64_t tag) {
    return static_cast<size_t>(std::count_if(t.items.begin(), t.items.end(),
                                             [&](uint64_t v) { return (v & (uint64_t{0xf} << 60)) == tag; }));
}

// One step of the decoder's loop the call's way: the status after it. A path whose counts (as
// `ipt flow --quiet` takes them) are not its runs' leaves a mark.
inline int step(ri::InsnDecoder& d, Call call, Transcript& t) {
    if (call == Call::next) {
        ri::Insn insn;
        const int status = d.next(insn);
        if (insn.iclass != ri::InsnClass::error) insns(t, insn.ip, 1, &insn.size);
        return status;
    }
    if (call == Call::block) {
        ri::InsnRun run;
        const int status = d.next_block(run);
        insns(t, run.ip, run.ninsn, run.sizes);
        return status;
    }
    ri::InsnPath p;
    const int status = d.next_path(p);
    const uint64_t before = t.insn;
    uint32_t ends = 0;
    for (uint32_t r = 0; r < p.nruns; ++r) {
        const ri::CachedRun& c = d.block_cache().at(p.runs[r]);
        insns(t, c.ip, c.ninsn, d.block_cache().sizes(c));
        const ri::InsnClass k = c.last.iclass;
        ends += !((k == ri::InsnClass::call || k == ri::InsnClass::jump) && c.last.is_direct);
    }
    if (!p.nruns) insns(t, p.single.ip, p.single.ninsn, p.single.sizes);
    if (t.insn - before != p.ninsn || (p.nruns && ends != p.ends)) item(t, kMark, 1);
    return status;
}

struct Limits {
    int max_stops = 10000;           // syncs and resyncs
    uint64_t max_insn = UINT64_MAX;  // then cut
    bool resync = false;             // --resync-on-error
};

// Every instruction, event, status and error of ptxed's loop over d; with resync, on after an
// error from resync() while that moves on (as FlowRun does).
inline Transcript transcript(ri::InsnDecoder& d, Call call, const Limits& limits) {
    Transcript t;
    uint64_t steps = 0, resynced_at = ~uint64_t{0};
    int status = d.sync_forward();
    for (int stops = 0; stops < limits.max_stops && status != -ri::pte_eos; ++stops) {
        for (;;) {
            while (status >= 0 && (status & ri::pts_event_pending)) {
                ri::QueryEvent ev;
                status = d.event(ev);
                item(t, kEvent, static_cast<int>(ev.type));
                t.items.push_back(ev.ip);
                item(t, kStatus, status);
            }
            if (status < 0 || (status & ri::pts_eos)) break;
            if (t.insn >= limits.max_insn || ++steps > limits.max_insn) {
                t.cut = true;
                return t;
            }
            status = step(d, call, t);
            if (status != 0) item(t, kStatus, status);
        }
        uint64_t offset = 0;
        d.get_offset(offset);
        item(t, kStop, status);
        t.items.push_back(offset);
        if (status < 0 && status != -ri::pte_eos && limits.resync && offset != resynced_at) {
            resynced_at = offset;
            status = d.resync();
            item(t, kResync, status);
            if (status >= 0 || status == -ri::pte_eos) continue;
        }
        status = d.sync_forward();
    }
    return t;
}

// Empty when b says what a says (or, one cut short, the same as far as it goes), else the first
// item where they part.
inline std::string first_difference(const Transcript& a, const Transcript& b) {
    if (a.items == b.items) return {};
    const size_t common = std::min(a.items.size(), b.items.size());
    const size_t at = static_cast<size_t>(
        std::mismatch(a.items.begin(), a.items.begin() + static_cast<ptrdiff_t>(common), b.items.begin())
            .first -
        a.items.begin());
    if ((a.cut && at == a.items.size()) || (b.cut && at == b.items.size())) return {};
    auto show = [](const Transcript& t, size_t k) { return k < t.items.size() ? t.items[k] : ~uint64_t{0}; };
    const auto insn =
        static_cast<uint64_t>(std::count_if(a.items.begin(), a.items.begin() + static_cast<ptrdiff_t>(at),
                                            [](uint64_t v) { return v >> 60 == 0; }));
    char line[160];
    std::snprintf(line, sizeof line,
                  "at item %zu (instruction %" PRIu64 "): %" PRIx64 " vs %" PRIx64 ", then %" PRIx64
                  " vs %" PRIx64,
                  at, insn, show(a, at), show(b, at), show(a, at + 1), show(b, at + 1));
    return line;
}

}  // namespace ipt_flow_transcript
