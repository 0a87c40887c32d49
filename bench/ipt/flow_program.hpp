// A made-up x86-64 program and an Intel PT trace of a run of it, for timing instruction flow
// decoders (ipt_flow_bench) and testing what is built on them: functions of basic blocks (plain
// instructions, conditional branches forward and back, direct and indirect calls, jumps,
// returns), run with random branch outcomes and traced as a processor traces it: TNT bits
// (returns compressed while their call was traced since the last PSB), TIPs for indirect calls
// and uncompressed returns, a PSB+ (TSC, MODE.exec, FUP) every psb_period bytes, MTCs or CYCs.
// The trace is written with libipt's encoder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringscope::ipt::bench {

// The flow kinds of FlowProgram::kind_at: what the trace says about where control goes next.
enum FlowKind : uint8_t { flow_plain = 0, flow_direct = 1, flow_cond = 2, flow_indirect = 3 };

struct FlowProgram {
    uint64_t address = 0x400000;
    std::vector<uint8_t> code;
    // The length of the instruction starting at each byte of code (0 inside one).
    std::vector<uint8_t> size_at;
    // What the instruction starting at each byte does to control (FlowKind).
    std::vector<uint8_t> kind_at;
    // Where each function starts (function 0 is the loop that calls the others) and its name.
    std::vector<uint64_t> function_start;
    std::vector<std::string> function_name;
};

struct FlowTrace {
    std::vector<uint8_t> pt;
    uint64_t insn = 0;  // instructions the run executed
};

struct FlowOptions {
    uint64_t seed = 1;
    int functions = 200;
    size_t pt_bytes = 4u << 20;
    size_t psb_period = 4096;
    uint64_t address = 0x400000;  // where the code is
    // Streams that a decoder started fresh at each PSB decodes differently (tests of ipt flow -j):
    // returns compressed across PSBs (as a processor does not), and every Nth PSB+ written while
    // tracing is off (FUP and TIP.PGD before it, MODE.exec and TIP.PGE after it).
    bool compress_across_psb = false;
    int disable_every = 0;
    // Dense timing (tests and rows of --time): a CYC after three TNT or TIP packets of four, no MTC
    // (whose calibration, without a TMA and CPUID 0x15, would stop the CYCs' from the PSB+ TSCs),
    // so that the time moves at each of them once the second PSB+ has calibrated it.
    bool cyc = false;
};

FlowProgram make_program(const FlowOptions& o);
FlowTrace trace_program(const FlowProgram& program, const FlowOptions& o);

}  // namespace ringscope::ipt::bench
