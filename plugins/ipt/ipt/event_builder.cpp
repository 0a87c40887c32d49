#include "ipt/event_builder.hpp"

#include <cstring>
#include <string_view>

#include "ipt/errors.hpp"

namespace ringscope::ipt {
namespace {

template <class T>
void put(BuiltEvent& out, uint32_t off, T v) {
    std::memcpy(out.bytes->data() + out.base + off, &v, sizeof v);
}

void begin_payload(BuiltEvent& out, size_t size, uint64_t offset) {
    out.bytes->resize(out.base + size);
    std::memset(out.bytes->data() + out.base, 0, size);
    put<uint64_t>(out, 0, offset);
}

// put_*'s answer for a packet that makes no event.
constexpr int kNoEvent = -1;

}  // namespace

bool EventBuilder::resync(PacketDecoder& decoder, EventState& state) const {
    int err = decoder.sync_forward();
    if (err < 0) {
        if (err != -pte_eos) {
            state.status = Error(Errc::corrupt, std::string("cannot synchronize: ") + pt_error_string(err))
                               .in_file(source_);
        }
        state.done = true;
        return false;
    }
    // Packets before this PSB were skipped: their state is gone.
    state.last_ip.init();
    state.time.init();
    state.time_known = state.ip_known = true;
    return true;
}

void EventBuilder::put_ip(BuiltEvent& out, EventState& state, uint64_t offset, const PacketIp& ip) const {
    begin_payload(out, 20 + 4, offset);
    state.last_ip.update(ip);
    if (ip.ipc == ipc_full || ip.ipc == ipc_sext_48) state.ip_known = true;
    uint64_t full = 0;
    bool suppressed = state.last_ip.query(&full) < 0;
    put<uint64_t>(out, 8, full);
    put<uint8_t>(out, 16, ip.ipc);
    put<uint8_t>(out, 17, suppressed ? 1 : 0);
    std::string_view name;
    std::string text;
    if (!suppressed) {
        if (auto sym = resolvers_.lookup(kKernelDomain, full)) {
            text = ResolverService::format(*sym, full);
            name = text;
        }
    }
    ByteBuffer& bytes = *out.bytes;
    auto at = static_cast<uint32_t>(bytes.size() - out.base);
    uint8_t* end = bytes.extend(name.size() + 1);
    if (!name.empty()) std::memcpy(end, name.data(), name.size());  // an empty view may hold nullptr
    end[name.size()] = 0;
    put<uint32_t>(out, 20, (static_cast<uint32_t>(name.size() + 1) << 16) | at);
}

// The packets of the flow and its state: PSB, TNT, TIP, FUP, MODE, PIP, VMCS, OVF, STOP.
int EventBuilder::put_flow(BuiltEvent& out, EventState& state, uint64_t offset, const Packet& pk) const {
    const auto& p = pk.payload;
    switch (pk.type) {
        case PacketType::psb:
            begin_payload(out, 8, offset);
            return t_psb;
        case PacketType::tnt_8:
        case PacketType::tnt_64:
            begin_payload(out, 17, offset);
            put<uint64_t>(out, 8, p.tnt.payload);
            put<uint8_t>(out, 16, p.tnt.bit_size);
            return t_tnt;
        case PacketType::tip:
        case PacketType::tip_pge:
        case PacketType::tip_pgd:
        case PacketType::fup:
            put_ip(out, state, offset, p.ip);
            return pk.type == PacketType::tip       ? t_tip
                   : pk.type == PacketType::tip_pge ? t_tip_pge
                   : pk.type == PacketType::tip_pgd ? t_tip_pgd
                                                    : t_fup;
        case PacketType::mode:
            begin_payload(out, 15, offset);
            put<uint8_t>(out, 8, p.mode.leaf == ModeLeaf::exec ? 0 : 1);
            put<uint8_t>(out, 9, p.mode.csl);
            put<uint8_t>(out, 10, p.mode.csd);
            put<uint8_t>(out, 11, p.mode.iflag);
            put<uint8_t>(out, 12, p.mode.intx);
            put<uint8_t>(out, 13, p.mode.abrt);
            put<uint8_t>(out, 14, p.mode.leaf == ModeLeaf::exec ? exec_mode_of(p.mode) : 0);
            return t_mode;
        case PacketType::pip:
            begin_payload(out, 17, offset);
            put<uint64_t>(out, 8, p.pip.cr3);
            put<uint8_t>(out, 16, p.pip.nr);
            return t_pip;
        case PacketType::vmcs:
            begin_payload(out, 16, offset);
            put<uint64_t>(out, 8, p.vmcs_base);
            return t_vmcs;
        case PacketType::ovf:
            state.last_ip.init();
            state.ip_known = true;
            begin_payload(out, 8, offset);
            return t_ovf;
        case PacketType::stop:
            begin_payload(out, 8, offset);
            return t_stop;
        default:
            return kNoEvent;
    }
}

// The timing packets, into the time events carry: TSC, TMA, MTC, CYC, CBR.
int EventBuilder::put_timing(BuiltEvent& out, EventState& state, uint64_t offset, const Packet& pk) const {
    const auto& p = pk.payload;
    switch (pk.type) {
        case PacketType::tsc:
            state.time.update_tsc(p.tsc);
            state.time_known = true;
            begin_payload(out, 16, offset);
            put<uint64_t>(out, 8, p.tsc);
            return t_tsc;
        case PacketType::tma:
            state.time.update_tma(p.tma, config_);
            return kNoEvent;
        case PacketType::mtc:
            state.time.update_mtc(p.mtc, config_);
            begin_payload(out, 9, offset);
            put<uint8_t>(out, 8, p.mtc);
            return t_mtc;
        case PacketType::cyc:
            begin_payload(out, 16, offset);
            put<uint64_t>(out, 8, p.cyc);
            return t_cyc;
        case PacketType::cbr:
            state.time.update_cbr(p.cbr);
            begin_payload(out, 9, offset);
            put<uint8_t>(out, 8, p.cbr);
            return t_cbr;
        default:
            return kNoEvent;
    }
}

// PTWRITE and the power packets: PWRE, PWRX, MWAIT, EXSTOP.
int EventBuilder::put_power(BuiltEvent& out, uint64_t offset, const Packet& pk) const {
    const auto& p = pk.payload;
    switch (pk.type) {
        case PacketType::ptw:
            begin_payload(out, 18, offset);
            put<uint64_t>(out, 8, p.ptw.payload);
            put<uint8_t>(out, 16, static_cast<uint8_t>(p.ptw.plc == 0 ? 4 : 8));
            put<uint8_t>(out, 17, p.ptw.ip);
            return t_ptw;
        case PacketType::pwre:
            begin_payload(out, 11, offset);
            put<uint8_t>(out, 8, p.pwre.state);
            put<uint8_t>(out, 9, p.pwre.sub_state);
            put<uint8_t>(out, 10, p.pwre.hw);
            return t_pwre;
        case PacketType::pwrx:
            begin_payload(out, 13, offset);
            put<uint8_t>(out, 8, p.pwrx.last);
            put<uint8_t>(out, 9, p.pwrx.deepest);
            put<uint8_t>(out, 10, p.pwrx.interrupt);
            put<uint8_t>(out, 11, p.pwrx.store);
            put<uint8_t>(out, 12, p.pwrx.autonomous);
            return t_pwrx;
        case PacketType::mwait:
            begin_payload(out, 16, offset);
            put<uint32_t>(out, 8, p.mwait.hints);
            put<uint32_t>(out, 12, p.mwait.ext);
            return t_mwait;
        case PacketType::exstop:
            begin_payload(out, 9, offset);
            put<uint8_t>(out, 8, p.exstop_ip);
            return t_exstop;
        default:
            return kNoEvent;
    }
}

bool EventBuilder::next(PacketDecoder& decoder, EventState& state, BuiltEvent& out,
                        const uint8_t* stop) const {
    if (state.done) return false;
    const auto stop_offset = static_cast<uint64_t>(stop - config_.begin);
    const auto size_of_stream = static_cast<uint64_t>(config_.end - config_.begin);
    for (;;) {
        uint64_t offset = 0;
        decoder.get_offset(offset);
        if (offset >= stop_offset && offset < size_of_stream) return false;
        Packet pk;
        int size = decoder.next(pk);
        if (size < 0) {
            if (size == -pte_eos) {
                state.done = true;
                return false;
            }
            // A bad packet: skip to the next PSB; what lies between is lost.
            state.missed = -1;
            if (!resync(decoder, state)) return false;
            continue;
        }
        int type = kNoEvent;
        switch (pk.type) {
            case PacketType::tsc:
            case PacketType::tma:
            case PacketType::mtc:
            case PacketType::cyc:
            case PacketType::cbr:
                type = put_timing(out, state, offset, pk);
                break;
            case PacketType::ptw:
            case PacketType::pwre:
            case PacketType::pwrx:
            case PacketType::mwait:
            case PacketType::exstop:
                type = put_power(out, offset, pk);
                break;
            default:
                type = put_flow(out, state, offset, pk);
                break;
        }
        // PAD, PSBEND, MNT, CFE, EVD, TRIG and the like carry nothing the events show.
        if (type == kNoEvent) continue;
        out.type = static_cast<TypeIndex>(type);
        state.time.query_tsc(&out.ts, nullptr, nullptr);
        out.missed = state.missed;
        state.missed = 0;
        return true;
    }
}

}  // namespace ringscope::ipt
