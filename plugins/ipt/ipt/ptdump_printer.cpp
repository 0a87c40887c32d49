#include "ipt/ptdump_printer.hpp"

#include <cstddef>
#include <cstring>

#include "ipt/pages_behind.hpp"

// Fields are cut to ptdump's widths on purpose, as ptdump's snprintf does.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

namespace ringscope::ipt {

void PtdumpPrinter::print_line(const PtdumpLine& line) {
    if (line.skip || options_.quiet) return;
    const char* sep = "";
    if (options_.show_offset) {
        std::fprintf(out_, "%-*s", static_cast<int>(sizeof line.offset), line.offset);
        sep = " ";
    }
    if (line.raw[0]) {
        std::fprintf(out_, "%s%-*s", sep, static_cast<int>(sizeof line.raw), line.raw);
        sep = " ";
    }
    if (line.payload.standard[0])
        std::fprintf(out_, "%s%-*s", sep, static_cast<int>(sizeof line.opcode), line.opcode);
    else
        std::fprintf(out_, "%s%s", sep, line.opcode);
    if (line.use_ext_payload) {
        std::fprintf(out_, " %s", line.payload.extended);
    } else if (line.tracking.id[0]) {
        std::fprintf(out_, " %-*s", static_cast<int>(sizeof line.payload.standard), line.payload.standard);
        std::fprintf(out_, " %-*s", static_cast<int>(sizeof line.tracking.id), line.tracking.id);
        std::fprintf(out_, "%s", line.tracking.payload);
    } else if (line.payload.standard[0]) {
        std::fprintf(out_, " %s", line.payload.standard);
    }
    std::fputc('\n', out_);
}

int PtdumpPrinter::print_raw(PtdumpLine& line, uint64_t offset, const Packet& packet) {
    const uint8_t* p = config_.begin + offset;
    if (config_.end - p < packet.size) return diag("bad packet size", offset, -pte_bad_packet);
    char* out = line.raw;
    for (int i = 0; i < packet.size; ++i) {
        if (out + 2 >= line.raw + sizeof line.raw) return diag("truncating raw packet", offset, 0);
        std::snprintf(out, 3, "%02x", p[i]);
        out += 2;
    }
    return 0;
}

void PtdumpPrinter::print_ip_payload(PtdumpLine& line, const PacketIp& ip) {
    switch (ip.ipc) {
        case ipc_suppressed:
            field(line.payload.standard, "%x: ????????????????", ipc_suppressed);
            return;
        case ipc_update_16:
            field(line.payload.standard, "%x: ????????????%04" PRIx64, ipc_update_16, ip.ip);
            return;
        case ipc_update_32:
            field(line.payload.standard, "%x: ????????%08" PRIx64, ipc_update_32, ip.ip);
            return;
        case ipc_update_48:
            field(line.payload.standard, "%x: ????%012" PRIx64, ipc_update_48, ip.ip);
            return;
        case ipc_sext_48:
            field(line.payload.standard, "%x: %016" PRIx64, ipc_sext_48, LastIp::sext48(ip.ip));
            return;
        default:
            field(line.payload.standard, "%x: %016" PRIx64, ip.ipc, ip.ip);
            return;
    }
}

void PtdumpPrinter::print_tnt_payload(PtdumpLine& line, uint64_t offset, const PacketTnt& tnt) {
    unsigned bits = tnt.bit_size;
    unsigned n = bits;
    if (n > sizeof line.payload.extended) {
        diag("truncating tnt payload", offset, 0);
        n = sizeof line.payload.extended;
    }
    for (unsigned i = 0; i < n; ++i, --bits)
        line.payload.extended[i] = (tnt.payload & (1ull << (bits - 1))) ? '!' : '.';
}

static const char* exec_mode_name(ExecMode m) {
    switch (m) {
        case em_64bit:
            return "64-bit";
        case em_32bit:
            return "32-bit";
        case em_16bit:
            return "16-bit";
        default:
            return "unknown";
    }
}

static const char* cfe_type_name(uint8_t type) {
    switch (type) {
        case 1:
            return "intr";
        case 2:
            return "iret";
        case 3:
            return "smi";
        case 4:
            return "rsm";
        case 5:
            return "sipi";
        case 6:
            return "init";
        case 7:
            return "vmentry";
        case 8:
            return "vmexit";
        case 9:
            return "vmexit_intr";
        case 10:
            return "shutdown";
        case 12:
            return "uintr";
        case 13:
            return "uiret";
        case 14:
            return "swintr";
        case 15:
            return "syscall";
        default:
            return "unknown";
    }
}

static const char* evd_type_name(uint8_t type) {
    switch (type) {
        case 0:
            return "cr2";
        case 1:
            return "vmxq";
        case 2:
            return "vmxr";
        default:
            return "unknown";
    }
}

// ptdump's pwrx wake reason: exactly one of the reasons, or "bad".
static const char* pwrx_wake_reason(const PacketPwrx& p) {
    int n = p.interrupt + p.store + p.autonomous;
    if (n != 1) return "bad";
    if (p.interrupt) return "int";
    if (p.store) return " st";
    return " hw";
}

void PtdumpPrinter::print_packet(PtdumpLine& line, uint64_t offset, const Packet& pk) {
    const auto& pl = pk.payload;
    switch (pk.type) {
        case PacketType::unknown:
            field(line.opcode, "<unknown>");
            return;
        case PacketType::invalid:
            field(line.opcode, "<invalid>");
            return;
        case PacketType::psb:
        case PacketType::psbend:
        case PacketType::ovf:
            print_sync_packet(line, offset, pk);
            return;
        case PacketType::pad:
            field(line.opcode, "pad");
            if (options_.no_pad) line.skip = true;
            return;
        case PacketType::stop:
            field(line.opcode, "stop");
            return;
        case PacketType::fup:
        case PacketType::tip:
        case PacketType::tip_pge:
        case PacketType::tip_pgd:
            field(line.opcode, "%s",
                  pk.type == PacketType::fup       ? "fup"
                  : pk.type == PacketType::tip     ? "tip"
                  : pk.type == PacketType::tip_pge ? "tip.pge"
                                                   : "tip.pgd");
            print_ip_payload(line, pl.ip);
            if (options_.show_last_ip) track_last_ip(line, offset, pl.ip);
            return;
        case PacketType::tnt_8:
        case PacketType::tnt_64:
            field(line.opcode, pk.type == PacketType::tnt_8 ? "tnt.8" : "tnt.64");
            line.use_ext_payload = true;
            print_tnt_payload(line, offset, pl.tnt);
            return;
        case PacketType::pip:
        case PacketType::vmcs:
        case PacketType::mode:
            print_state_packet(line, pk);
            return;
        case PacketType::tsc:
        case PacketType::cbr:
        case PacketType::tma:
        case PacketType::mtc:
        case PacketType::cyc:
            print_timing_packet(line, offset, pk);
            return;
        case PacketType::mnt:
        case PacketType::exstop:
        case PacketType::mwait:
        case PacketType::pwre:
        case PacketType::pwrx:
        case PacketType::ptw:
            print_event_packet(line, pk);
            return;
        case PacketType::cfe:
        case PacketType::evd:
        case PacketType::trig:
            print_event_trace_packet(line, pk);
            return;
    }
    diag("unknown packet", offset, -pte_bad_opc);
}

// PSB, PSBEND and OVF: where the header starts and ends, and what they do to the time
// calibration.
void PtdumpPrinter::print_sync_packet(PtdumpLine& line, uint64_t offset, const Packet& pk) {
    switch (pk.type) {
        case PacketType::psb:
            field(line.opcode, "psb");
            if (options_.track_time) {
                int err = tracking_.tcal.update_psb(config_);
                if (err < 0) diag("error calibrating time", offset, err);
            }
            tracking_.in_header = true;
            return;
        case PacketType::psbend:
            field(line.opcode, "psbend");
            tracking_.in_header = false;
            return;
        case PacketType::ovf:
            field(line.opcode, "ovf");
            if (options_.track_time) {
                if (options_.keep_tcal_on_ovf)
                    tracking_.tcal.update_ovf();
                else
                    tracking_.tcal.init();
            }
            return;
        default:
            return;
    }
}

// PIP, VMCS and MODE: the state they give, with the tracking column.
void PtdumpPrinter::print_state_packet(PtdumpLine& line, const Packet& pk) {
    const auto& pl = pk.payload;
    switch (pk.type) {
        case PacketType::pip:
            field(line.opcode, "pip");
            field(line.payload.standard, "%" PRIx64 "%s", pl.pip.cr3, pl.pip.nr ? ", nr" : "");
            field(line.tracking.id, "cr3");
            field(line.tracking.payload, "%016" PRIx64, pl.pip.cr3);
            return;
        case PacketType::vmcs:
            field(line.opcode, "vmcs");
            field(line.payload.standard, "%" PRIx64, pl.vmcs_base);
            field(line.tracking.id, "vmcs");
            field(line.tracking.payload, "%016" PRIx64, pl.vmcs_base);
            return;
        case PacketType::mode:
            if (pl.mode.leaf == ModeLeaf::exec) {
                const char* csd = pl.mode.csd ? "cs.d" : "";
                const char* csl = pl.mode.csl ? "cs.l" : "";
                const char* sep = (csd[0] && csl[0]) ? ", " : "";
                field(line.opcode, "mode.exec");
                field(line.payload.standard, "%s%s%s%s%s", csd, sep, csl,
                      (pl.mode.iflag && (csd[0] || csl[0])) ? ", " : "", pl.mode.iflag ? "if" : "");
                if (options_.show_exec_mode) {
                    field(line.tracking.id, "em");
                    field(line.tracking.payload, "%s", exec_mode_name(exec_mode_of(pl.mode)));
                }
            } else {
                const char* intx = pl.mode.intx ? "intx" : "";
                const char* abrt = pl.mode.abrt ? "abrt" : "";
                const char* sep = (intx[0] && abrt[0]) ? ", " : "";
                field(line.opcode, "mode.tsx");
                field(line.payload.standard, "%s%s%s", intx, sep, abrt);
            }
            return;
        default:
            return;
    }
}

// TSC, CBR, TMA, MTC and CYC, and the time they track (--time, --tcal).
void PtdumpPrinter::print_timing_packet(PtdumpLine& line, uint64_t offset, const Packet& pk) {
    const auto& pl = pk.payload;
    switch (pk.type) {
        case PacketType::tsc:
            field(line.opcode, "tsc");
            field(line.payload.standard, "%" PRIx64, pl.tsc);
            if (options_.track_time) track_tsc(line, offset, pl.tsc);
            if (options_.no_timing) line.skip = true;
            return;
        case PacketType::cbr:
            field(line.opcode, "cbr");
            field(line.payload.standard, "%x", pl.cbr);
            if (options_.track_time) track_cbr(line, offset, pl.cbr);
            if (options_.no_timing) line.skip = true;
            return;
        case PacketType::tma:
            field(line.opcode, "tma");
            field(line.payload.standard, "%x, %x", pl.tma.ctc, pl.tma.fc);
            if (options_.track_time) track_tma(line, offset, pl.tma);
            if (options_.no_timing) line.skip = true;
            return;
        case PacketType::mtc:
            field(line.opcode, "mtc");
            field(line.payload.standard, "%x", pl.mtc);
            if (options_.track_time) track_mtc(line, offset, pl.mtc);
            if (options_.no_timing) line.skip = true;
            return;
        case PacketType::cyc:
            field(line.opcode, "cyc");
            field(line.payload.standard, "%" PRIx64, pl.cyc);
            if (options_.track_time && !options_.no_cyc) track_cyc(line, offset, pl.cyc);
            if (options_.no_timing || options_.no_cyc) line.skip = true;
            return;
        default:
            return;
    }
}

// MNT, the power packets and PTWRITE.
void PtdumpPrinter::print_event_packet(PtdumpLine& line, const Packet& pk) {
    const auto& pl = pk.payload;
    switch (pk.type) {
        case PacketType::mnt:
            field(line.opcode, "mnt");
            field(line.payload.standard, "%" PRIx64, pl.mnt);
            return;
        case PacketType::exstop:
            field(line.opcode, "exstop");
            field(line.payload.standard, "%s", pl.exstop_ip ? "ip" : "");
            return;
        case PacketType::mwait:
            field(line.opcode, "mwait");
            field(line.payload.standard, "%08x, %08x", pl.mwait.hints, pl.mwait.ext);
            return;
        case PacketType::pwre:
            field(line.opcode, "pwre");
            field(line.payload.standard, "c%u.%u%s", (pl.pwre.state + 1u) & 0xf,
                  (pl.pwre.sub_state + 1u) & 0xf, pl.pwre.hw ? ", hw" : "");
            return;
        case PacketType::pwrx:
            field(line.opcode, "pwrx");
            field(line.payload.standard, "%s: c%u, c%u", pwrx_wake_reason(pl.pwrx), (pl.pwrx.last + 1u) & 0xf,
                  (pl.pwrx.deepest + 1u) & 0xf);
            return;
        case PacketType::ptw:
            field(line.opcode, "ptw");
            field(line.payload.standard, "%x: %" PRIx64 "%s", pl.ptw.plc, pl.ptw.payload,
                  pl.ptw.ip ? ", ip" : "");
            return;
        default:
            return;
    }
}

// Event Trace's CFE and EVD, and TRIG.
void PtdumpPrinter::print_event_trace_packet(PtdumpLine& line, const Packet& pk) {
    const auto& pl = pk.payload;
    switch (pk.type) {
        case PacketType::cfe: {
            field(line.opcode, "cfe");
            const char* ip = pl.cfe.ip ? ", ip" : "";
            switch (pl.cfe.type) {
                case 1:
                case 9:
                case 12:
                case 14:
                    field(line.payload.standard, "%u: %u%s", pl.cfe.type, pl.cfe.vector, ip);
                    break;
                case 5:
                    field(line.payload.standard, "%u: %x%s", pl.cfe.type, pl.cfe.vector, ip);
                    break;
                default:
                    field(line.payload.standard, "%u%s", pl.cfe.type, ip);
                    break;
            }
            field(line.tracking.id, "type");
            field(line.tracking.payload, "%s", cfe_type_name(pl.cfe.type));
            return;
        }
        case PacketType::evd:
            field(line.opcode, "evd");
            field(line.payload.standard, "%u: %" PRIx64, pl.evd.type, pl.evd.payload);
            field(line.tracking.id, "type");
            field(line.tracking.payload, "%s", evd_type_name(pl.evd.type));
            return;
        case PacketType::trig: {
            field(line.opcode, "trig");
            char icnt[16] = "";
            if (pl.trig.icntv) std::snprintf(icnt, sizeof icnt, ", icnt: %u", pl.trig.icnt);
            field(line.payload.standard, "%02x%s%s%s", pl.trig.trbv, pl.trig.ip ? ", ip" : "",
                  pl.trig.mult ? ", mult" : "", icnt);
            return;
        }
        default:
            return;
    }
}

int PtdumpPrinter::dump_one(uint64_t offset, const Packet& packet) {
    PtdumpLine line;
    std::memset(&line, 0, sizeof line);
    field(line.offset, "%016" PRIx64, offset);
    if (options_.show_raw_bytes) {
        int err = print_raw(line, offset, packet);
        if (err < 0) return err;
    }
    print_packet(line, offset, packet);
    print_line(line);
    return 0;
}

int PtdumpPrinter::dump_packets(PacketDecoder& decoder, uint64_t stop) {
    uint64_t offset = 0;
    for (;;) {
        int err = decoder.get_offset(offset);
        if (err < 0) return diag("error getting offset", offset, err);
        if (offset >= stop) return kStopped;
        // The file shrank: stopped here, the caller reports it.
        if (pages_ && !pages_->at(offset)) return kStopped;
        Packet packet;
        err = decoder.next(packet);
        if (err < 0) {
            if (err == -pte_eos) return 0;
            return diag("error decoding packet", offset, err);
        }
        err = dump_one(offset, packet);
        if (err < 0) return err;
    }
}

int PtdumpPrinter::run() {
    PacketDecoder decoder(config_);
    int err;
    if (options_.no_sync) {
        err = decoder.sync_set(0);
        if (err < 0) return diag("sync error", 0, err);
    } else {
        err = decoder.sync_forward();
        if (err < 0) return err == -pte_eos ? 0 : diag("sync error", 0, err);
    }
    run_until(decoder, UINT64_MAX);
    return status_;
}

uint64_t PtdumpPrinter::run_until(PacketDecoder& decoder, uint64_t stop) {
    const auto size = static_cast<uint64_t>(config_.end - config_.begin);
    for (;;) {
        int err = dump_packets(decoder, stop);
        if (err == 0) return size;
        if (err == kStopped) {
            uint64_t at = size;
            decoder.get_offset(at);
            return at;
        }
        err = decoder.sync_forward();
        if (err < 0) {
            if (err != -pte_eos) status_ = diag("sync error", 0, err);
            return size;
        }
        tracking_.reset();
    }
}

}  // namespace ringscope::ipt
