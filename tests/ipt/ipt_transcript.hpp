// The transcript both decoders are compared by: packets, sync forward/backward/set and a query
// walk, as text. Ours here; libipt's adapter is in ipt_transcript_libipt.hpp.
#pragma once

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "ipt/errors.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/query_decoder.hpp"

namespace ipt_transcript {

namespace ri = ringscope::ipt;

inline constexpr int kMaxSteps = 4000;

inline std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
inline std::string fmt(const char* f, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

// ---- packets ----

inline std::string packet_line(uint64_t off, int type, int size, const std::string& payload) {
    return fmt("P %" PRIx64 " t%d s%d %s\n", off, type, size, payload.c_str());
}

inline std::string ours_payload(const ri::Packet& p) {
    using T = ri::PacketType;
    const auto& x = p.payload;
    switch (p.type) {
        case T::fup:
        case T::tip:
        case T::tip_pge:
        case T::tip_pgd:
            return fmt("ipc%d %" PRIx64, x.ip.ipc, x.ip.ip);
        case T::tnt_8:
        case T::tnt_64:
            return fmt("%d %" PRIx64, x.tnt.bit_size, x.tnt.payload);
        case T::mode:
            return x.mode.leaf == ri::ModeLeaf::exec ? fmt("exec %d %d", x.mode.csl, x.mode.csd)
                                                     : fmt("tsx %d %d", x.mode.intx, x.mode.abrt);
        case T::pip:
            return fmt("%" PRIx64 " %d", x.pip.cr3, x.pip.nr);
        case T::vmcs:
            return fmt("%" PRIx64, x.vmcs_base);
        case T::cbr:
            return fmt("%x", x.cbr);
        case T::tsc:
            return fmt("%" PRIx64, x.tsc);
        case T::tma:
            return fmt("%x %x", x.tma.ctc, x.tma.fc);
        case T::mtc:
            return fmt("%x", x.mtc);
        case T::cyc:
            return fmt("%" PRIx64, x.cyc);
        case T::mnt:
            return fmt("%" PRIx64, x.mnt);
        case T::exstop:
            return fmt("%d", x.exstop_ip);
        case T::mwait:
            return fmt("%x %x", x.mwait.hints, x.mwait.ext);
        case T::pwre:
            return fmt("%d %d %d", x.pwre.state, x.pwre.sub_state, x.pwre.hw);
        case T::pwrx:
            return fmt("%d %d %d%d%d", x.pwrx.last, x.pwrx.deepest, x.pwrx.interrupt, x.pwrx.store,
                       x.pwrx.autonomous);
        case T::ptw:
            return fmt("%d %" PRIx64 " %d", x.ptw.plc, x.ptw.payload, x.ptw.ip);
        default:
            return "";
    }
}

// ---- events ----

inline std::string ours_event(const ri::QueryEvent& e) {
    using K = ri::EventKind;
    std::string s =
        fmt("ev%d sup%d su%d tsc%d:%" PRIx64 " lost%u/%u ", static_cast<int>(e.type), e.ip_suppressed,
            e.status_update, e.has_tsc, e.has_tsc ? e.tsc : 0, e.lost_mtc, e.lost_cyc);
    uint64_t ip = e.ip_suppressed ? 0 : e.ip;
    switch (e.type) {
        case K::enabled:
        case K::disabled:
        case K::overflow:
        case K::exstop:
            return s + fmt("%" PRIx64, ip);
        case K::async_disabled:
        case K::async_branch:
            return s + fmt("%" PRIx64 " %" PRIx64, e.from, ip);
        case K::paging:
            return s + fmt("%" PRIx64 " %d", e.cr3, e.non_root);
        case K::async_paging:
            return s + fmt("%" PRIx64 " %d %" PRIx64, e.cr3, e.non_root, ip);
        case K::exec_mode:
            return s + fmt("%d %" PRIx64, e.exec_mode, ip);
        case K::tsx:
            return s + fmt("%d %d %" PRIx64, e.speculative, e.aborted, ip);
        case K::vmcs:
            return s + fmt("%" PRIx64, e.base);
        case K::async_vmcs:
            return s + fmt("%" PRIx64 " %" PRIx64, e.base, ip);
        case K::mwait:
            return s + fmt("%x %x %" PRIx64, e.hints, e.ext, ip);
        case K::pwre:
            return s + fmt("%d %d %d", e.state, e.sub_state, e.hw);
        case K::pwrx:
            return s + fmt("%d %d %d%d%d", e.last, e.deepest, e.interrupt, e.store, e.autonomous);
        case K::ptwrite:
            return s + fmt("%d %" PRIx64 " %" PRIx64, e.size, e.payload, ip);
        case K::cbr:
            return s + fmt("%x", e.ratio);
        case K::mnt:
            return s + fmt("%" PRIx64, e.payload);
        default:
            return s;
    }
}

// ---- the two decoders behind one interface ----

struct Ours {
    ri::Config config;
    explicit Ours(const uint8_t* b, const uint8_t* e) {
        config.begin = b;
        config.end = e;
        config.packets = ri::PacketSet::libipt_2_0_5;
    }
    std::string packets() {
        ri::PacketDecoder d(config);
        std::string out;
        int err = d.sync_forward();
        for (int steps = 0; steps < kMaxSteps; ++steps) {
            if (err < 0) return out + fmt("S %d\n", err);
            uint64_t off = 0;
            d.get_offset(off);
            ri::Packet p;
            int size = d.next(p);
            if (size < 0) {
                out += fmt("E %" PRIx64 " %d\n", off, size);
                if (size == -ri::pte_eos) return out;
                err = d.sync_forward();
                continue;
            }
            out += packet_line(off, static_cast<int>(p.type), size, ours_payload(p));
        }
        return out;
    }
    struct Q {
        ri::QueryDecoder d;
        explicit Q(const ri::Config& c) : d(c) {}
        int sync_forward(uint64_t* ip) { return d.sync_forward(ip); }
        int sync_backward(uint64_t* ip) { return d.sync_backward(ip); }
        int sync_set(uint64_t* ip, uint64_t off) { return d.sync_set(ip, off); }
        int sync_offset(uint64_t* off) { return d.get_sync_offset(*off); }
        int offset(uint64_t* off) { return d.get_offset(*off); }
        int cond(int* taken) { return d.cond_branch(*taken); }
        int indirect(uint64_t* ip) { return d.indirect_branch(*ip); }
        int event(std::string& text) {
            ri::QueryEvent e;
            int s = d.event(e);
            if (s >= 0) text = ours_event(e);
            return s;
        }
        int time(uint64_t* tsc, uint32_t* m, uint32_t* c) { return d.time(*tsc, m, c); }
        int cbr(uint32_t* r) { return d.core_bus_ratio(*r); }
    };
    Q query() { return Q(config); }
};

inline std::string sync_result(const char* tag, int status, uint64_t ip, uint64_t off, bool with_status) {
    if (status < 0) return fmt("%s err%d off%" PRIx64 "\n", tag, status, off);
    bool suppressed = status & ri::pts_ip_suppressed;
    return fmt("%s ok st%x ip%" PRIx64 " off%" PRIx64 "\n", tag, with_status ? status : 0,
               suppressed ? 0 : ip, off);
}

template <class Q>
std::string sync_forward_seq(Q& q) {
    std::string out;
    for (int i = 0; i < kMaxSteps; ++i) {
        uint64_t ip = 0, off = 0;
        int s = q.sync_forward(&ip);
        q.sync_offset(&off);
        out += sync_result("F", s, ip, s == -ri::pte_eos ? 0 : off, true);
        if (s == -ri::pte_eos) break;
    }
    return out;
}

// libipt 2.0.5 returns 0 from sync backward: status bits are not compared here (tested apart).
template <class Q>
std::string sync_backward_seq(Q& q) {
    std::string out;
    for (int i = 0; i < kMaxSteps; ++i) {
        uint64_t ip = 0, off = 0;
        int s = q.sync_backward(&ip);
        q.sync_offset(&off);
        // libipt fills ip only through pts_ip_suppressed-less starts; compare where it is defined.
        out += sync_result("B", s, s >= 0 ? ip : 0, s == -ri::pte_eos ? 0 : off, false);
        if (s == -ri::pte_eos) break;
    }
    return out;
}

// Drives the query API the way a flow decoder would and records every answer.
template <class Q>
std::string query_walk(Q& q) {
    std::string out;
    uint64_t ip = 0;
    int status = q.sync_forward(&ip);
    for (int steps = 0; steps < kMaxSteps; ++steps) {
        if (status < 0) {
            out += fmt("sync %d\n", status);
            if (status == -ri::pte_eos) return out;
            status = q.sync_forward(&ip);
            continue;
        }
        uint64_t off = 0;
        q.offset(&off);
        out += fmt("@%" PRIx64 " st%x ", off, status);
        if (status & ri::pts_event_pending) {
            std::string text;
            status = q.event(text);
            out += status >= 0 ? "event " + text : fmt("event err%d", status);
        } else {
            int taken = 0;
            status = q.cond(&taken);
            if (status >= 0) {
                out += fmt("cond %d", taken);
            } else if (status == -ri::pte_bad_query) {
                uint64_t target = 0;
                status = q.indirect(&target);
                out += status >= 0 ? fmt("ind %" PRIx64 "%s", (status & ri::pts_ip_suppressed) ? 0 : target,
                                         (status & ri::pts_ip_suppressed) ? " sup" : "")
                                   : fmt("ind err%d", status);
                if (status == -ri::pte_bad_query) {
                    std::string text;
                    status = q.event(text);
                    out += status >= 0 ? " event " + text : fmt(" event err%d", status);
                }
            } else {
                out += fmt("cond err%d", status);
            }
        }
        uint64_t tsc = 0;
        uint32_t lm = 0, lc = 0, cbr = 0;
        int ts = q.time(&tsc, &lm, &lc);
        int cs = q.cbr(&cbr);
        out += fmt(" | time %d %" PRIx64 " %u %u cbr %d %u\n", ts, ts >= 0 ? tsc : 0, lm, lc, cs,
                   cs >= 0 ? cbr : 0);
    }
    return out;
}

// Queries in an order chosen from the seed, right or wrong for the stream (a branch query where
// an event waits, an indirect branch while TNT bits are left, a sync in the middle): the
// decoders must agree on every answer, error and offset all the same.
template <class Q>
std::string mixed_walk(Q& q, uint64_t seed) {
    std::string out;
    uint64_t ip = 0, rng = seed * 0x9e3779b97f4a7c15ull + 1;
    int status = q.sync_forward(&ip);
    out += fmt("sync %d\n", status);
    for (int steps = 0; steps < kMaxSteps; ++steps) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned pick = static_cast<unsigned>(rng >> 59);  // 0..31
        if (status == -ri::pte_eos || status == -ri::pte_nosync) {
            if (pick < 2) return out;
            pick = 31;
        }
        if (pick < 18) {
            int taken = 0;
            status = q.cond(&taken);
            out += status >= 0 ? fmt("cond %d st%x", taken, status) : fmt("cond err%d", status);
        } else if (pick < 25) {
            uint64_t target = 0;
            status = q.indirect(&target);
            out += status >= 0
                       ? fmt("ind %" PRIx64 " st%x", (status & ri::pts_ip_suppressed) ? 0 : target, status)
                       : fmt("ind err%d", status);
        } else if (pick < 30) {
            std::string text;
            status = q.event(text);
            out += status >= 0 ? fmt("event st%x ", status) + text : fmt("event err%d", status);
        } else {
            status = q.sync_forward(&ip);
            out += fmt("sync %d", status);
        }
        uint64_t off = 0, tsc = 0;
        uint32_t lm = 0, lc = 0;
        int os = q.offset(&off);
        int ts = q.time(&tsc, &lm, &lc);
        out += fmt(" @%d %" PRIx64 " | time %d %" PRIx64 " %u %u\n", os, os >= 0 ? off : 0, ts,
                   ts >= 0 ? tsc : 0, lm, lc);
    }
    return out;
}

inline std::vector<uint64_t> set_offsets(const std::vector<uint8_t>& b, uint64_t seed) {
    std::vector<uint64_t> out;
    for (size_t i = 0; i + 1 < b.size(); ++i)
        if (b[i] == 0x02 && b[i + 1] == 0x82) out.push_back(i);  // every PSB candidate
    for (uint64_t k = 0; k < 6; ++k) out.push_back((seed * 7919 + k * 104729) % (b.size() + 4));
    return out;
}

template <class Dec>
std::string transcript(Dec& dec, const std::vector<uint8_t>& bytes, uint64_t seed) {
    std::string out = "== packets\n" + dec.packets();
    {
        auto q = typename Dec::Q(dec.config);
        out += "== forward\n" + sync_forward_seq(q);
    }
    {
        auto q = typename Dec::Q(dec.config);
        out += "== backward\n" + sync_backward_seq(q);
    }
    out += "== set\n";
    for (uint64_t off : set_offsets(bytes, seed)) {
        auto q = typename Dec::Q(dec.config);
        uint64_t ip = 0, soff = 0;
        int s = q.sync_set(&ip, off);
        q.sync_offset(&soff);
        out += fmt("at %" PRIx64 " ", off) + sync_result("S", s, ip, s < 0 ? 0 : soff, true);
    }
    {
        auto q = typename Dec::Q(dec.config);
        out += "== query\n" + query_walk(q);
    }
    return out;
}

// Not part of transcript(): the committed transcripts in tests/data/ipt do not have it.
template <class Dec>
std::string mixed_transcript(Dec& dec, const std::vector<uint8_t>&, uint64_t seed) {
    auto q = typename Dec::Q(dec.config);
    return mixed_walk(q, seed);
}

}  // namespace ipt_transcript
