#include "ipt_stream_generator.hpp"

#include "ipt_packet_writer.hpp"

#include <intel-pt.h>

#include <cstring>
#include <random>
#include <stdexcept>

namespace ringscope::ipt::testing {
namespace {

using Writer = PacketWriter;

class Gen {
  public:
    Gen(uint64_t seed, const GeneratorOptions& o, std::vector<uint8_t>& out) : rng_(seed), o_(o), w_(out) {}

    uint64_t r(uint64_t n) { return n ? std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_) : 0; }
    bool p(int percent) { return static_cast<int>(r(100)) < percent; }

    pt_packet ip_packet(pt_packet_type type) {
        pt_packet pk{};
        pk.type = type;
        static const pt_ip_compression kIpc[] = {pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
                                                 pt_ipc_sext_48,    pt_ipc_update_48, pt_ipc_full};
        pt_ip_compression ipc = o_.realistic ? (p(70) ? pt_ipc_update_16 : pt_ipc_update_32) : kIpc[r(6)];
        if (type == ppt_tip_pge && p(80)) ipc = p(50) ? pt_ipc_sext_48 : pt_ipc_full;
        pk.payload.ip.ipc = ipc;
        uint64_t ip = ip_base_ + r(0x100000);
        switch (ipc) {
            case pt_ipc_update_16:
                ip &= 0xffff;
                break;
            case pt_ipc_update_32:
                ip &= 0xffffffff;
                break;
            case pt_ipc_sext_48:
            case pt_ipc_update_48:
                ip &= 0xffffffffffffull;
                break;
            default:
                break;
        }
        pk.payload.ip.ip = ipc == pt_ipc_suppressed ? 0 : ip;
        return pk;
    }

    void tnt() {
        pt_packet pk{};
        if (p(85)) {
            pk.type = ppt_tnt_8;
            pk.payload.tnt.bit_size = static_cast<uint8_t>(1 + r(6));
        } else {
            pk.type = ppt_tnt_64;
            pk.payload.tnt.bit_size = static_cast<uint8_t>(1 + r(47));
        }
        pk.payload.tnt.payload = rng_() & ((1ull << pk.payload.tnt.bit_size) - 1);
        w_.put(pk);
    }

    void mode(bool tsx) {
        pt_packet pk{};
        pk.type = ppt_mode;
        if (tsx) {
            pk.payload.mode.leaf = pt_mol_tsx;
            pk.payload.mode.bits.tsx.intx = static_cast<uint32_t>(r(2));
            pk.payload.mode.bits.tsx.abrt = static_cast<uint32_t>(r(2));
        } else {
            pk.payload.mode.leaf = pt_mol_exec;
            pk.payload.mode.bits.exec.csl = static_cast<uint32_t>(r(2));
            pk.payload.mode.bits.exec.csd = static_cast<uint32_t>(r(2));
        }
        w_.put(pk);
    }

    void simple(pt_packet_type type) {
        pt_packet pk{};
        pk.type = type;
        switch (type) {
            case ppt_pip:
                pk.payload.pip.cr3 = (rng_() & 0xffffffffffull) << 5;
                pk.payload.pip.nr = static_cast<uint32_t>(r(2));
                break;
            case ppt_vmcs:
                pk.payload.vmcs.base = (rng_() & 0xffffffffffull) << 12;
                break;
            case ppt_tsc:
                tsc_ += r(100000);
                pk.payload.tsc.tsc = tsc_ & 0xffffffffffffffull;
                break;
            case ppt_cbr:
                pk.payload.cbr.ratio = static_cast<uint8_t>(r(4) == 0 ? 0 : 1 + r(60));
                break;
            case ppt_tma:
                pk.payload.tma.ctc = static_cast<uint16_t>(r(0x10000));
                pk.payload.tma.fc = static_cast<uint16_t>(r(0x200));
                break;
            case ppt_mtc:
                ctc_ += static_cast<uint8_t>(1 + r(3));
                pk.payload.mtc.ctc = ctc_;
                break;
            case ppt_cyc:
                pk.payload.cyc.value = r(8) == 0 ? rng_() & 0xffffffffffull : r(0x800);
                break;
            case ppt_mnt:
                pk.payload.mnt.payload = rng_();
                break;
            case ppt_exstop:
                pk.payload.exstop.ip = static_cast<uint32_t>(r(2));
                break;
            case ppt_mwait:
                pk.payload.mwait.hints = static_cast<uint32_t>(rng_());
                pk.payload.mwait.ext = static_cast<uint32_t>(rng_());
                break;
            case ppt_pwre:
                pk.payload.pwre.state = static_cast<uint8_t>(r(16));
                pk.payload.pwre.sub_state = static_cast<uint8_t>(r(16));
                pk.payload.pwre.hw = static_cast<uint32_t>(r(2));
                break;
            case ppt_pwrx:
                pk.payload.pwrx.last = static_cast<uint8_t>(r(16));
                pk.payload.pwrx.deepest = static_cast<uint8_t>(r(16));
                pk.payload.pwrx.interrupt = static_cast<uint32_t>(r(2));
                pk.payload.pwrx.store = static_cast<uint32_t>(r(2));
                pk.payload.pwrx.autonomous = static_cast<uint32_t>(r(2));
                break;
            case ppt_ptw:
                pk.payload.ptw.plc = static_cast<uint8_t>(r(2));
                pk.payload.ptw.payload = pk.payload.ptw.plc ? rng_() : rng_() & 0xffffffff;
                pk.payload.ptw.ip = static_cast<uint32_t>(r(2));
                break;
            default:
                break;
        }
        w_.put(pk);
    }

    void header() {
        pt_packet psb{};
        psb.type = ppt_psb;
        w_.put(psb);
        if (o_.realistic) {
            // What a processor writes: a well-formed PSB+ with the full state.
            simple(ppt_tsc);
            simple(ppt_tma);
            pt_packet cbr{};
            cbr.type = ppt_cbr;
            cbr.payload.cbr.ratio = 0x20;
            w_.put(cbr);
            pt_packet m{};
            m.type = ppt_mode;
            m.payload.mode.leaf = pt_mol_exec;
            m.payload.mode.bits.exec.csl = 1;
            w_.put(m);
            pt_packet fup{};
            fup.type = ppt_fup;
            fup.payload.ip.ipc = pt_ipc_sext_48;
            fup.payload.ip.ip = (ip_base_ + r(0x100000)) & 0xffffffffffffull;
            w_.put(fup);
            pt_packet end{};
            end.type = ppt_psbend;
            w_.put(end);
            return;
        }
        if (p(70)) simple(ppt_tsc);
        if (p(40)) simple(ppt_tma);
        if (p(60)) simple(ppt_cbr);
        if (p(30)) simple(ppt_pip);
        if (p(20)) simple(ppt_vmcs);
        if (p(80)) mode(false);
        if (p(20)) mode(true);
        if (p(10)) simple(ppt_mnt);
        if (p(10)) simple(ppt_mtc);
        if (p(10)) simple(ppt_cyc);
        if (p(10)) simple(ppt_pad);
        if (p(70)) {
            pt_packet fup = ip_packet(ppt_fup);
            if (p(70)) {
                fup.payload.ip.ipc = pt_ipc_sext_48;
                fup.payload.ip.ip = (ip_base_ + r(0x1000)) & 0xffffffffffffull;
            }
            w_.put(fup);
        }
        if (p(5)) tnt();  // out of context: PSB+ must reject it
        pt_packet end{};
        end.type = ppt_psbend;
        w_.put(end);
    }

    // A TNT, then timing packets (none a time in five), now and then a TIP or a FUP and TIP.
    void timed_tnt() {
        tnt();
        for (uint64_t left = r(5); left; --left) {
            const uint64_t k = r(10);
            simple(k < 5 ? ppt_mtc : k < 8 ? ppt_cyc : ppt_pad);
        }
        const uint64_t k = r(100);
        if (k < 12)
            w_.put(ip_packet(ppt_tip));
        else if (k < 14)
            w_.put(ip_packet(ppt_fup)), w_.put(ip_packet(ppt_tip));
    }

    void body(size_t n) {
        for (size_t i = 0; i < n; ++i) {
            if (o_.realistic && o_.timed_tnt) {
                timed_tnt();
                continue;
            }
            if (o_.realistic) {
                uint64_t k = r(100);
                if (k < 60)
                    tnt();
                else if (k < 85)
                    w_.put(ip_packet(ppt_tip));
                else if (k < 90)
                    simple(ppt_mtc);
                else if (k < 95)
                    simple(ppt_cyc);
                else if (k < 97)
                    w_.put(ip_packet(ppt_fup)), w_.put(ip_packet(ppt_tip));
                else
                    simple(ppt_pad);
                continue;
            }
            switch (r(24)) {
                case 0:
                case 1:
                case 2:
                case 3:
                    tnt();
                    break;
                case 4:
                case 5:
                    w_.put(ip_packet(ppt_tip));
                    break;
                case 6:
                    w_.put(ip_packet(ppt_tip_pge));
                    break;
                case 7:
                    w_.put(ip_packet(ppt_tip_pgd));
                    break;
                case 8:
                    w_.put(ip_packet(ppt_fup));
                    break;
                case 9:
                    mode(r(3) == 0);
                    break;
                case 10:
                    simple(ppt_pip);
                    break;
                case 11:
                    simple(ppt_vmcs);
                    break;
                case 12:
                    simple(ppt_tsc);
                    break;
                case 13:
                    simple(ppt_mtc);
                    break;
                case 14:
                    simple(ppt_tma);
                    break;
                case 15:
                    simple(ppt_cyc);
                    break;
                case 16:
                    simple(ppt_cbr);
                    break;
                case 17:
                    simple(p(50) ? ppt_ovf : ppt_stop);
                    break;
                case 18:
                    simple(ppt_mnt);
                    break;
                case 19:
                    simple(ppt_exstop);
                    break;
                case 20:
                    simple(ppt_mwait);
                    break;
                case 21:
                    simple(p(50) ? ppt_pwre : ppt_pwrx);
                    break;
                case 22:
                    simple(ppt_ptw);
                    break;
                default:
                    simple(ppt_pad);
                    break;
            }
        }
    }

    // A plausible control flow: enable, branches, an async branch, disable.
    void flow(size_t n) {
        w_.put(ip_packet(ppt_tip_pge));
        for (size_t i = 0; i < n; ++i) {
            uint64_t k = r(20);
            if (k < 9) {
                tnt();
            } else if (k < 13) {
                pt_packet tip = ip_packet(ppt_tip);
                if (tip.payload.ip.ipc == pt_ipc_suppressed) tip.payload.ip.ipc = pt_ipc_update_16;
                w_.put(tip);
            } else if (k < 14) {
                pt_packet fup = ip_packet(ppt_fup);
                fup.payload.ip.ipc = pt_ipc_sext_48;
                fup.payload.ip.ip &= 0xffffffffffffull;
                w_.put(fup);
                if (p(30)) simple(ppt_pip);
                if (p(20)) simple(ppt_vmcs);
                if (p(30)) mode(false);
                w_.put(p(80) ? ip_packet(ppt_tip) : ip_packet(ppt_tip_pgd));
                if (p(50)) w_.put(ip_packet(ppt_tip_pge));
            } else if (k < 15) {
                mode(false);
                w_.put(ip_packet(ppt_tip));
            } else if (k < 17) {
                simple(k == 15 ? ppt_mtc : ppt_cyc);
            } else if (k < 18) {
                simple(ppt_tsc);
                if (p(50)) simple(ppt_tma);
            } else if (k < 19) {
                simple(ppt_cbr);
            } else {
                simple(ppt_pad);
            }
        }
        w_.put(ip_packet(ppt_tip_pgd));
    }

  private:
    std::mt19937_64 rng_;
    const GeneratorOptions& o_;
    Writer w_;
    uint64_t ip_base_ = 0xffffffff81000000ull;
    uint64_t tsc_ = 0x100000;
    uint8_t ctc_ = 0;
};

}  // namespace

std::vector<uint8_t> generate_stream(uint64_t seed, const GeneratorOptions& o) {
    std::vector<uint8_t> out;
    Gen g(seed, o, out);
    if (o.garbage_before) {
        size_t n = 1 + g.r(40);
        for (size_t i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(g.r(256)));
    }
    for (size_t s = 0; s < o.segments; ++s) {
        if (!o.no_psb) g.header();
        size_t n = o.body_packets / 2 + g.r(o.body_packets + 1);
        if (o.close_psbs && g.p(50)) {
            // Back to back, or one small packet apart.
            if (g.p(50)) g.simple(ppt_pad);
            if (g.p(30)) g.tnt();
            continue;
        }
        if (o.realistic)
            g.body(n);
        else if (g.p(60))
            g.flow(n);
        else
            g.body(n);
    }
    if (o.truncate_last && !out.empty())
        out.resize(out.size() - 1 - g.r(std::min<size_t>(out.size() - 1, 6)));
    for (size_t i = 0; i < o.corruptions && !out.empty(); ++i)
        out[g.r(out.size())] = static_cast<uint8_t>(g.r(256));
    return out;
}

GeneratorOptions random_options(uint64_t seed) {
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
    auto r = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
    GeneratorOptions o;
    o.segments = 1 + r(6);
    o.body_packets = 5 + r(60);
    o.garbage_before = r(3) == 0;
    o.no_psb = r(20) == 0;
    o.truncate_last = r(3) == 0;
    o.corruptions = r(3) == 0 ? 1 + r(4) : 0;
    o.close_psbs = r(4) == 0;
    return o;
}

std::string describe(const GeneratorOptions& o) {
    std::string s = "segments=" + std::to_string(o.segments) + " body=" + std::to_string(o.body_packets);
    if (o.garbage_before) s += " garbage";
    if (o.no_psb) s += " no-psb";
    if (o.timed_tnt) s += " timed-tnt";
    if (o.truncate_last) s += " truncated";
    if (o.corruptions) s += " corrupt=" + std::to_string(o.corruptions);
    if (o.close_psbs) s += " close-psbs";
    return s;
}

}  // namespace ringscope::ipt::testing
