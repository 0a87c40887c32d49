// What a decoder knows about the trace besides its bytes: the buffer, the cpu (for errata) and the
// timing parameters (libipt's struct pt_config, without the unknown-packet callback).
#pragma once

#include <cstdint>

namespace ringscope::ipt {

enum class CpuVendor : uint8_t { unknown = 0, intel = 1 };

struct Cpu {
    CpuVendor vendor = CpuVendor::unknown;
    uint16_t family = 0;
    uint8_t model = 0;
    uint8_t stepping = 0;
};

// Processor errata libipt works around; all off unless a cpu says otherwise.
struct Errata {
    bool bdm70 = false, bdm64 = false, skd007 = false, skd022 = false, skd010 = false, skl014 = false,
         apl12 = false, apl11 = false, skl168 = false, skz84 = false;
};

// Which packets the opcode tables know: libipt master's full set, or libipt 2.0.5's (no CFE, EVD,
// TRIG: they decode as unknown opcodes), for exact comparisons with the Debian library. The packet
// decoder's resynchronization follows the same version.
enum class PacketSet : uint8_t { full, libipt_2_0_5 };

struct Config {
    const uint8_t* begin = nullptr;
    const uint8_t* end = nullptr;
    Cpu cpu;
    Errata errata;
    uint32_t cpuid_0x15_eax = 0, cpuid_0x15_ebx = 0;
    uint8_t mtc_freq = 0;
    uint8_t nom_freq = 0;
    PacketSet packets = PacketSet::full;
    // libipt's keep_tcal_on_ovf (ptxed's --insn:/--block:keep-tcal-on-ovf): an overflow keeps the
    // time calibration (its reference points dropped) instead of starting it over.
    bool keep_tcal_on_ovf = false;
    // libipt's enable_iflags_events (ptxed's --event:iflags): with libipt master's events, the
    // interrupt flag of MODE.EXEC as events of its own.
    bool iflags_events = false;
};

// libipt's pt_cpu_errata(): fills the errata of a known cpu; -pte_bad_cpu for an unknown one.
int cpu_errata(Errata& errata, const Cpu& cpu) noexcept;
// libipt's pt_cpu_parse(): "f/m[/s]" (strtol base 0 numbers); 0 or -pte_invalid.
int cpu_parse(Cpu& cpu, const char* text) noexcept;

}  // namespace ringscope::ipt
