#include "ipt/ptdump.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ipt/errors.hpp"
#include "ipt/last_ip.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/pages_behind.hpp"
#include "ipt/psb_parts.hpp"
#include "ipt/timing.hpp"
#include "ipt/trace_file.hpp"

// Fields are cut to ptdump's widths on purpose, as ptdump's snprintf does.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

namespace ringscope::ipt {
namespace {

// The columns of one output line, with ptdump's field widths (the sizes of its buffers).
struct Line {
    char offset[17];
    char raw[33];
    char opcode[10];
    union {
        char standard[25];
        char extended[48];
    } payload;
    struct {
        char id[5];
        char payload[17];
    } tracking;
    bool use_ext_payload;
    bool skip;
    bool skip_time;
    bool skip_tcal;
};

template <size_t N, class... Args>
void field(char (&f)[N], const char* fmt, Args... args) {
    std::memset(f, 0, N);
    std::snprintf(f, N, fmt, args...);
}

struct Tracking {
    LastIp last_ip;
    TimeCal tcal;
    TimeState time;
    uint64_t tsc = 0;
    uint64_t fcr = 0;
    bool in_header = false;

    void reset() { *this = Tracking{}; }
};

class Dumper {
  public:
    Dumper(const Config& config, const PtdumpOptions& options, std::FILE* out, PagesBehind* pages = nullptr)
        : config_(config), options_(options), out_(out), pages_(pages) {}

    int run();
    // Dumps from the decoder's position until the end, or until a packet would start at or after
    // stop (an offset). Returns the offset it stopped at, the stream's size at the end.
    uint64_t run_until(PacketDecoder& decoder, uint64_t stop);
    int status() const noexcept { return status_; }

  private:
    static constexpr int kStopped = 1;

    int diag(const char* what, uint64_t offset, int err) {
        if (err)
            std::fprintf(out_, "[%" PRIx64 ": %s: %s]\n", offset, what, pt_error_string(err));
        else
            std::fprintf(out_, "[%" PRIx64 ": %s]\n", offset, what);
        return err;
    }
    int dump_packets(PacketDecoder& decoder, uint64_t stop);
    int dump_one(uint64_t offset, const Packet& packet);
    void print_line(const Line& line);
    int print_raw(Line& line, uint64_t offset, const Packet& packet);
    void print_packet(Line& line, uint64_t offset, const Packet& packet);
    void print_ip_payload(Line& line, const PacketIp& ip);
    void print_tnt_payload(Line& line, uint64_t offset, const PacketTnt& tnt);
    void track_last_ip(Line& line, uint64_t offset, const PacketIp& ip);
    void track_time(Line& line, uint64_t offset);
    void print_time(Line& line, uint64_t offset);
    void print_tcal(Line& line, uint64_t offset);
    void track_tsc(Line& line, uint64_t offset, uint64_t tsc);
    void track_cbr(Line& line, uint64_t offset, uint8_t cbr);
    void track_tma(Line& line, uint64_t offset, const PacketTma& tma);
    void track_mtc(Line& line, uint64_t offset, uint8_t mtc);
    void track_cyc(Line& line, uint64_t offset, uint64_t cyc);

    const Config& config_;
    const PtdumpOptions& options_;
    std::FILE* out_;
    PagesBehind* pages_;
    Tracking tracking_;
    int status_ = 0;
};

void Dumper::print_line(const Line& line) {
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

int Dumper::print_raw(Line& line, uint64_t offset, const Packet& packet) {
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

void Dumper::print_ip_payload(Line& line, const PacketIp& ip) {
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

void Dumper::print_tnt_payload(Line& line, uint64_t offset, const PacketTnt& tnt) {
    unsigned bits = tnt.bit_size;
    unsigned n = bits;
    if (n > sizeof line.payload.extended) {
        diag("truncating tnt payload", offset, 0);
        n = sizeof line.payload.extended;
    }
    for (unsigned i = 0; i < n; ++i, --bits)
        line.payload.extended[i] = (tnt.payload & (1ull << (bits - 1))) ? '!' : '.';
}

void Dumper::track_last_ip(Line& line, uint64_t offset, const PacketIp& ip) {
    field(line.tracking.id, "ip");
    int err = tracking_.last_ip.update(ip);
    if (err < 0) {
        field(line.tracking.payload, "<unavailable>");
        diag("error tracking last-ip", offset, err);
        return;
    }
    uint64_t value = 0;
    err = tracking_.last_ip.query(&value);
    if (err < 0) {
        if (err == -pte_ip_suppressed) {
            field(line.tracking.payload, "<suppressed>");
        } else {
            field(line.tracking.payload, "<unavailable>");
            diag("error tracking last-ip", offset, err);
        }
        return;
    }
    field(line.tracking.payload, "%016" PRIx64, value);
}

void Dumper::print_time(Line& line, uint64_t offset) {
    field(line.tracking.id, "tsc");
    uint64_t tsc = 0;
    int err = tracking_.time.query_tsc(&tsc, nullptr, nullptr);
    if (err < 0 && !(err == -pte_no_time && options_.no_wall_clock)) {
        diag("error printing time", offset, err);
        field(line.tracking.payload, "<unavailable>");
        return;
    }
    if (options_.show_time_as_delta) {
        uint64_t old = tracking_.tsc;
        if (old <= tsc)
            field(line.tracking.payload, "+%" PRIx64, tsc - old);
        else
            field(line.tracking.payload, "-%" PRIx64, old - tsc);
        tracking_.tsc = tsc;
    } else {
        field(line.tracking.payload, "%016" PRIx64, tsc);
    }
}

void Dumper::print_tcal(Line& line, uint64_t offset) {
    field(line.tracking.id, "fcr");
    uint64_t fcr = 0;
    int err = tracking_.tcal.get_fcr(fcr);
    if (err < 0) {
        field(line.tracking.payload, "<unavailable>");
        diag("error printing time", offset, err);
        return;
    }
    // fcr is fixed point: print it as a double.
    double dfcr = static_cast<double>(fcr) / static_cast<double>(1ull << kFcrShift);
    if (options_.show_time_as_delta) {
        double old = static_cast<double>(tracking_.fcr) / static_cast<double>(1ull << kFcrShift);
        field(line.tracking.payload, "%+.3f", dfcr - old);
        tracking_.fcr = fcr;
    } else {
        field(line.tracking.payload, "%.3f", dfcr);
    }
}

void Dumper::track_time(Line& line, uint64_t offset) {
    if (options_.show_tcal && !line.skip_tcal) print_tcal(line, offset);
    if (options_.show_time && !line.skip_time) print_time(line, offset);
}

void Dumper::track_tsc(Line& line, uint64_t offset, uint64_t tsc) {
    if (!options_.no_tcal) {
        int err = tracking_.in_header ? tracking_.tcal.header_tsc(tsc) : tracking_.tcal.update_tsc(tsc);
        if (err < 0) diag("error calibrating time", offset, err);
    }
    int err = tracking_.time.update_tsc(tsc);
    if (err < 0) diag("error updating time", offset, err);
    track_time(line, offset);
}

void Dumper::track_cbr(Line& line, uint64_t offset, uint8_t cbr) {
    if (!options_.no_tcal) {
        int err = tracking_.in_header ? tracking_.tcal.header_cbr(cbr, config_)
                                      : tracking_.tcal.update_cbr(cbr, config_);
        if (err < 0) diag("error calibrating time", offset, err);
    }
    int err = tracking_.time.update_cbr(cbr);
    if (err < 0) diag("error updating time", offset, err);
    line.skip_time = true;  // no time update at a CBR
    track_time(line, offset);
}

void Dumper::track_tma(Line& line, uint64_t offset, const PacketTma& tma) {
    int err = tracking_.time.update_tma(tma, config_);
    if (err < 0) diag("error updating time", offset, err);
    line.skip_tcal = true;  // no calibration update at a TMA
    track_time(line, offset);
}

void Dumper::track_mtc(Line& line, uint64_t offset, uint8_t mtc) {
    if (!options_.no_tcal) {
        int err = tracking_.tcal.update_mtc(mtc, config_);
        if (err < 0) diag("error calibrating time", offset, err);
    }
    int err = tracking_.time.update_mtc(mtc, config_);
    if (err < 0) diag("error updating time", offset, err);
    track_time(line, offset);
}

void Dumper::track_cyc(Line& line, uint64_t offset, uint64_t cyc) {
    uint64_t fcr = 0;
    if (!options_.no_tcal) {
        int err = tracking_.tcal.get_fcr(fcr);
        if (err < 0) diag("calibration error", offset, err);
        err = tracking_.tcal.update_cyc(cyc);
        if (err < 0) diag("error calibrating time", offset, err);
    }
    int err = tracking_.time.update_cyc(cyc, config_, fcr);
    if (err < 0)
        diag("error updating time", offset, err);
    else if (!fcr)
        diag("error updating time: no calibration", offset, 0);
    line.skip_tcal = true;
    track_time(line, offset);
}

const char* exec_mode_name(ExecMode m) {
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

const char* cfe_type_name(uint8_t type) {
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

const char* evd_type_name(uint8_t type) {
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
const char* pwrx_wake_reason(const PacketPwrx& p) {
    int n = p.interrupt + p.store + p.autonomous;
    if (n != 1) return "bad";
    if (p.interrupt) return "int";
    if (p.store) return " st";
    return " hw";
}

void Dumper::print_packet(Line& line, uint64_t offset, const Packet& pk) {
    const auto& pl = pk.payload;
    switch (pk.type) {
        case PacketType::unknown:
            field(line.opcode, "<unknown>");
            return;
        case PacketType::invalid:
            field(line.opcode, "<invalid>");
            return;
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
        case PacketType::pad:
            field(line.opcode, "pad");
            if (options_.no_pad) line.skip = true;
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
        case PacketType::tnt_8:
        case PacketType::tnt_64:
            field(line.opcode, pk.type == PacketType::tnt_8 ? "tnt.8" : "tnt.64");
            line.use_ext_payload = true;
            print_tnt_payload(line, offset, pl.tnt);
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
    }
    diag("unknown packet", offset, -pte_bad_opc);
}

int Dumper::dump_one(uint64_t offset, const Packet& packet) {
    Line line;
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

int Dumper::dump_packets(PacketDecoder& decoder, uint64_t stop) {
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

int Dumper::run() {
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

uint64_t Dumper::run_until(PacketDecoder& decoder, uint64_t stop) {
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

// Input bytes per part with -j: its text stays in memory until written.
constexpr uint64_t kDumpPartBytes = 256 << 10;

// ptdump's FILE[:FROM[-TO]] (strtoull base 0); a suffix that does not parse is part of the name.
int split_range(std::string& file, uint64_t& offset, uint64_t& size) {
    offset = size = 0;
    auto colon = file.rfind(':');
    if (colon == std::string::npos) return 0;
    const char* arg = file.c_str() + colon + 1;
    if (!*arg) return 0;
    char* rest = nullptr;
    errno = 0;
    uint64_t begin = std::strtoull(arg, &rest, 0);
    if (errno) return 0;
    if (*rest == '\0') {
        offset = begin;
        file.resize(colon);
        return 0;
    }
    if (*rest != '-') return 0;
    uint64_t end = std::strtoull(rest + 1, &rest, 0);
    if (errno || *rest) return 0;
    if (end <= begin) return -pte_invalid;
    offset = begin;
    size = end - begin;
    file.resize(colon);
    return 0;
}

bool get_uint(uint64_t& value, uint64_t max, const std::string& option, const std::string* arg,
              std::FILE* err) {
    if (!arg || arg->empty() || arg->rfind("--", 0) == 0) {
        std::fprintf(err, "ringscope ipt dump: %s: missing argument.\n", option.c_str());
        return false;
    }
    char* rest = nullptr;
    errno = 0;
    value = std::strtoull(arg->c_str(), &rest, 0);
    if (errno || *rest) {
        std::fprintf(err, "ringscope ipt dump: %s: bad argument: %s.\n", option.c_str(), arg->c_str());
        return false;
    }
    if (value > max) {
        std::fprintf(err, "ringscope ipt dump: %s: value too big: %s.\n", option.c_str(), arg->c_str());
        return false;
    }
    return true;
}

void help(std::FILE* out) {
    std::fputs(
        "usage: ringscope ipt dump [<options>] <ptfile>[:<from>[-<to>]]\n\n"
        "options:\n"
        "  --help|-h                 this text.\n"
        "  --no-sync                 don't try to sync to the first PSB, assume a valid\n"
        "                            sync point at the beginning of the trace.\n"
        "  --quiet                   don't print anything but errors.\n"
        "  --no-pad                  don't show PAD packets.\n"
        "  --no-timing               don't show timing packets.\n"
        "  --no-cyc                  don't show CYC packets and ignore them when tracking time.\n"
        "  --no-offset               don't show the offset as the first column.\n"
        "  --raw                     show raw packet bytes.\n"
        "  --lastip                  show last IP updates on packets with IP payloads.\n"
        "  --exec-mode               show the current execution mode on mode.exec packets.\n"
        "  --time                    show the estimated TSC on timing packets.\n"
        "  --tcal                    show time calibration information.\n"
        "  --time-delta              show timing information as delta.\n"
        "  --no-tcal                 skip timing calibration.\n"
        "  --no-wall-clock           suppress the no-time error and print relative time.\n"
        "  --keep-tcal-on-ovf        keep the time calibration across overflows.\n"
        "  --cpu none|f/m[/s]        decode for this cpu (family/model[/stepping]).\n"
        "  --mtc-freq <n>            set the MTC frequency (IA32_RTIT_CTL[17:14]) to <n>.\n"
        "  --nom-freq <n>            set the nominal frequency (MSR_PLATFORM_INFO[15:8]) to <n>.\n"
        "  --cpuid-0x15.eax          set the value of cpuid[0x15].eax.\n"
        "  --cpuid-0x15.ebx          set the value of cpuid[0x15].ebx.\n"
        "  -j|--jobs <n>             decode PSB segments on <n> threads (same output; serial\n"
        "                            with --no-sync, --lastip, --time, --tcal).\n",
        out);
}

}  // namespace

int ptdump(const Config& config, const PtdumpOptions& options, std::FILE* out, unsigned threads,
           uint64_t part_bytes, PagesBehind* pages) {
    // Last-IP and time tracking carry state from one PSB segment to the next: serial only.
    if (threads <= 1 || options.no_sync || options.show_last_ip || options.track_time) {
        Dumper dumper(config, options, out, pages);
        return dumper.run();
    }
    struct Part {
        std::string text;
        int status = 0;
    };
    int status = 0;
    decode_psb_parts<Part>(
        config, threads, part_bytes ? part_bytes : kDumpPartBytes,
        [&](Part& part, PacketDecoder& decoder, uint64_t stop) -> uint64_t {
            char* buf = nullptr;
            size_t len = 0;
            std::FILE* text = open_memstream(&buf, &len);
            if (!text) {
                part.status = -pte_nomem;
                return static_cast<uint64_t>(config.end - config.begin);
            }
            Dumper dumper(config, options, text);
            uint64_t reached = dumper.run_until(decoder, stop);
            std::fclose(text);
            part.text.assign(buf, len);
            std::free(buf);
            part.status = dumper.status();
            return reached;
        },
        [&](Part& part) {
            std::fwrite(part.text.data(), 1, part.text.size(), out);
            if (part.status < 0 && status == 0) status = part.status;
        });
    return status;
}

int ptdump_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
    PtdumpOptions options;
    Config config;
    unsigned threads = 1;
    std::string file;
    bool have_file = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const std::string* next = i + 1 < args.size() ? &args[i + 1] : nullptr;
        if (a.empty() || a[0] != '-') {
            if (i + 1 != args.size()) {
                std::fprintf(err, "ringscope ipt dump: [<options>] <ptfile>.  Use --help or -h for help.\n");
                return 2;
            }
            file = a;
            have_file = true;
            break;
        }
        uint64_t v = 0;
        if (a == "-h" || a == "--help") {
            help(out);
            return 0;
        } else if (a == "--no-sync") {
            options.no_sync = true;
        } else if (a == "--quiet") {
            options.quiet = true;
        } else if (a == "--no-pad") {
            options.no_pad = true;
        } else if (a == "--no-timing") {
            options.no_timing = true;
        } else if (a == "--no-cyc") {
            options.no_cyc = true;
        } else if (a == "--no-offset") {
            options.show_offset = false;
        } else if (a == "--raw") {
            options.show_raw_bytes = true;
        } else if (a == "--lastip") {
            options.show_last_ip = true;
        } else if (a == "--exec-mode") {
            options.show_exec_mode = true;
        } else if (a == "--time") {
            if (options.show_tcal) {
                std::fprintf(err, "ringscope ipt dump: specify either --time or --tcal.\n");
                return 2;
            }
            options.track_time = options.show_time = true;
        } else if (a == "--time-delta") {
            options.show_time_as_delta = true;
        } else if (a == "--tcal") {
            if (options.show_time) {
                std::fprintf(err, "ringscope ipt dump: specify either --time or --tcal.\n");
                return 2;
            }
            options.track_time = options.show_tcal = true;
        } else if (a == "--no-tcal") {
            options.no_tcal = true;
        } else if (a == "--no-wall-clock") {
            options.no_wall_clock = true;
        } else if (a == "--keep-tcal-on-ovf") {
            options.keep_tcal_on_ovf = true;
        } else if (a == "--cpu") {
            if (!next) {
                std::fprintf(err, "ringscope ipt dump: --cpu: missing argument.\n");
                return 2;
            }
            ++i;
            if (*next == "none") {
                config.cpu = Cpu{};
            } else if (cpu_parse(config.cpu, next->c_str()) < 0) {
                std::fprintf(err, "ringscope ipt dump: cpu must be specified as f/m[/s]\n");
                return 2;
            }
        } else if (a == "-j" || a == "--jobs") {
            if (!get_uint(v, 1024, a, next, err)) return 2;
            if (v == 0) {
                std::fprintf(err, "ringscope ipt dump: %s: must be at least 1.\n", a.c_str());
                return 2;
            }
            threads = static_cast<unsigned>(v);
            ++i;
        } else if (a == "--mtc-freq") {
            if (!get_uint(v, 0xff, a, next, err)) return 2;
            config.mtc_freq = static_cast<uint8_t>(v);
            ++i;
        } else if (a == "--nom-freq") {
            if (!get_uint(v, 0xff, a, next, err)) return 2;
            config.nom_freq = static_cast<uint8_t>(v);
            ++i;
        } else if (a == "--cpuid-0x15.eax") {
            if (!get_uint(v, 0xffffffffu, a, next, err)) return 2;
            config.cpuid_0x15_eax = static_cast<uint32_t>(v);
            ++i;
        } else if (a == "--cpuid-0x15.ebx") {
            if (!get_uint(v, 0xffffffffu, a, next, err)) return 2;
            config.cpuid_0x15_ebx = static_cast<uint32_t>(v);
            ++i;
        } else {
            std::fprintf(err, "ringscope ipt dump: unknown option: %s.\n", a.c_str());
            return 2;
        }
    }
    if (!have_file) {
        std::fprintf(err, "ringscope ipt dump: No processor trace file specified.\n");
        return 2;
    }
    uint64_t offset = 0, size = 0;
    if (split_range(file, offset, size) < 0) {
        std::fprintf(err, "ringscope ipt dump: bad file %s: %s.\n", file.c_str(),
                     pt_error_string(-pte_invalid));
        return 2;
    }
    if (config.cpu.vendor != CpuVendor::unknown) {
        int e = cpu_errata(config.errata, config.cpu);
        if (e < 0) std::fprintf(out, "[0: failed to determine errata: %s]\n", pt_error_string(e));
    }
    auto bytes = TraceBytes::map(file, offset, size);
    if (!bytes) {
        const Error& e = bytes.error();
        std::fprintf(err, "ringscope ipt dump: %s: %s\n", e.file().c_str(), e.message().c_str());
        return 1;
    }
    config.begin = bytes->begin();
    config.end = bytes->end();
    PagesBehind pages(*bytes);
    int status = ptdump(config, options, out, threads, 0, &pages);
    std::fflush(out);
    if (pages.failed()) {
        std::fprintf(err, "ringscope ipt dump: %s\n", pages.error().to_string().c_str());
        return 1;
    }
    return status < 0 ? 1 : 0;
}

}  // namespace ringscope::ipt
