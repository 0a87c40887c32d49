// libipt's side of the transcript (tests and tools that link Debian's libipt only).
#pragma once

#include <intel-pt.h>

#include <cstring>
#include <string>

#include "ipt_transcript.hpp"

namespace ipt_transcript {

inline std::string theirs_payload(const pt_packet& p) {
    const auto& x = p.payload;
    switch (p.type) {
        case ppt_fup:
        case ppt_tip:
        case ppt_tip_pge:
        case ppt_tip_pgd:
            return fmt("ipc%d %" PRIx64, x.ip.ipc, x.ip.ip);
        case ppt_tnt_8:
        case ppt_tnt_64:
            return fmt("%d %" PRIx64, x.tnt.bit_size, x.tnt.payload);
        case ppt_mode:
            return x.mode.leaf == pt_mol_exec ? fmt("exec %d %d", x.mode.bits.exec.csl, x.mode.bits.exec.csd)
                                              : fmt("tsx %d %d", x.mode.bits.tsx.intx, x.mode.bits.tsx.abrt);
        case ppt_pip:
            return fmt("%" PRIx64 " %d", x.pip.cr3, x.pip.nr);
        case ppt_vmcs:
            return fmt("%" PRIx64, x.vmcs.base);
        case ppt_cbr:
            return fmt("%x", x.cbr.ratio);
        case ppt_tsc:
            return fmt("%" PRIx64, x.tsc.tsc);
        case ppt_tma:
            return fmt("%x %x", x.tma.ctc, x.tma.fc);
        case ppt_mtc:
            return fmt("%x", x.mtc.ctc);
        case ppt_cyc:
            return fmt("%" PRIx64, x.cyc.value);
        case ppt_mnt:
            return fmt("%" PRIx64, x.mnt.payload);
        case ppt_exstop:
            return fmt("%d", x.exstop.ip);
        case ppt_mwait:
            return fmt("%x %x", x.mwait.hints, x.mwait.ext);
        case ppt_pwre:
            return fmt("%d %d %d", x.pwre.state, x.pwre.sub_state, x.pwre.hw);
        case ppt_pwrx:
            return fmt("%d %d %d%d%d", x.pwrx.last, x.pwrx.deepest, x.pwrx.interrupt, x.pwrx.store,
                       x.pwrx.autonomous);
        case ppt_ptw:
            return fmt("%d %" PRIx64 " %d", x.ptw.plc, x.ptw.payload, x.ptw.ip);
        default:
            return "";
    }
}

inline std::string theirs_event(const pt_event& e) {
    std::string s =
        fmt("ev%d sup%d su%d tsc%d:%" PRIx64 " lost%u/%u ", static_cast<int>(e.type), e.ip_suppressed,
            e.status_update, e.has_tsc, e.has_tsc ? e.tsc : 0, e.lost_mtc, e.lost_cyc);
    const auto& v = e.variant;
    auto ip = [&](uint64_t x) { return e.ip_suppressed ? 0 : x; };
    switch (e.type) {
        case ptev_enabled:
            return s + fmt("%" PRIx64, ip(v.enabled.ip));
        case ptev_disabled:
            return s + fmt("%" PRIx64, ip(v.disabled.ip));
        case ptev_overflow:
            return s + fmt("%" PRIx64, ip(v.overflow.ip));
        case ptev_exstop:
            return s + fmt("%" PRIx64, ip(v.exstop.ip));
        case ptev_async_disabled:
            return s + fmt("%" PRIx64 " %" PRIx64, v.async_disabled.at, ip(v.async_disabled.ip));
        case ptev_async_branch:
            return s + fmt("%" PRIx64 " %" PRIx64, v.async_branch.from, ip(v.async_branch.to));
        case ptev_paging:
            return s + fmt("%" PRIx64 " %d", v.paging.cr3, v.paging.non_root);
        case ptev_async_paging:
            return s + fmt("%" PRIx64 " %d %" PRIx64, v.async_paging.cr3, v.async_paging.non_root,
                           ip(v.async_paging.ip));
        case ptev_exec_mode:
            return s + fmt("%d %" PRIx64, v.exec_mode.mode, ip(v.exec_mode.ip));
        case ptev_tsx:
            return s + fmt("%d %d %" PRIx64, v.tsx.speculative, v.tsx.aborted, ip(v.tsx.ip));
        case ptev_vmcs:
            return s + fmt("%" PRIx64, v.vmcs.base);
        case ptev_async_vmcs:
            return s + fmt("%" PRIx64 " %" PRIx64, v.async_vmcs.base, ip(v.async_vmcs.ip));
        case ptev_mwait:
            return s + fmt("%x %x %" PRIx64, v.mwait.hints, v.mwait.ext, ip(v.mwait.ip));
        case ptev_pwre:
            return s + fmt("%d %d %d", v.pwre.state, v.pwre.sub_state, v.pwre.hw);
        case ptev_pwrx:
            return s + fmt("%d %d %d%d%d", v.pwrx.last, v.pwrx.deepest, v.pwrx.interrupt, v.pwrx.store,
                           v.pwrx.autonomous);
        case ptev_ptwrite:
            return s + fmt("%d %" PRIx64 " %" PRIx64, v.ptwrite.size, v.ptwrite.payload, ip(v.ptwrite.ip));
        case ptev_cbr:
            return s + fmt("%x", v.cbr.ratio);
        case ptev_mnt:
            return s + fmt("%" PRIx64, v.mnt.payload);
        default:
            return s;
    }
}

struct Theirs {
    pt_config config;
    explicit Theirs(const uint8_t* b, const uint8_t* e) {
        std::memset(&config, 0, sizeof config);
        config.size = sizeof config;
        config.begin = const_cast<uint8_t*>(b);
        config.end = const_cast<uint8_t*>(e);
    }
    std::string packets() {
        pt_packet_decoder* d = pt_pkt_alloc_decoder(&config);
        std::string out;
        int err = pt_pkt_sync_forward(d);
        for (int steps = 0; steps < kMaxSteps; ++steps) {
            if (err < 0) {
                out += fmt("S %d\n", err);
                break;
            }
            uint64_t off = 0;
            pt_pkt_get_offset(d, &off);
            pt_packet p;
            int size = pt_pkt_next(d, &p, sizeof p);
            if (size < 0) {
                out += fmt("E %" PRIx64 " %d\n", off, size);
                if (size == -pte_eos) break;
                err = pt_pkt_sync_forward(d);
                continue;
            }
            out += packet_line(off, static_cast<int>(p.type), size, theirs_payload(p));
        }
        pt_pkt_free_decoder(d);
        return out;
    }
    struct Q {
        pt_query_decoder* d;
        explicit Q(const pt_config& c) : d(pt_qry_alloc_decoder(&c)) {}
        ~Q() { pt_qry_free_decoder(d); }
        Q(const Q&) = delete;
        int sync_forward(uint64_t* ip) { return pt_qry_sync_forward(d, ip); }
        int sync_backward(uint64_t* ip) { return pt_qry_sync_backward(d, ip); }
        int sync_set(uint64_t* ip, uint64_t off) { return pt_qry_sync_set(d, ip, off); }
        int sync_offset(uint64_t* off) { return pt_qry_get_sync_offset(d, off); }
        int offset(uint64_t* off) { return pt_qry_get_offset(d, off); }
        int cond(int* taken) { return pt_qry_cond_branch(d, taken); }
        int indirect(uint64_t* ip) { return pt_qry_indirect_branch(d, ip); }
        int event(std::string& text) {
            pt_event e;
            int s = pt_qry_event(d, &e, sizeof e);
            if (s >= 0) text = theirs_event(e);
            return s;
        }
        int time(uint64_t* tsc, uint32_t* m, uint32_t* c) { return pt_qry_time(d, tsc, m, c); }
        int cbr(uint32_t* r) { return pt_qry_core_bus_ratio(d, r); }
    };
};

}  // namespace ipt_transcript
