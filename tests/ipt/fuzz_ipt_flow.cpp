// libFuzzer target: the instruction flow decoder on arbitrary PT bytes against a code image.
// Input: 4 bytes of options (FlowOptions and Config bits, see Input), up to 63 bytes of code of
// the input's own, then the PT stream. The image: tests/data/ipt/flow/code.bin (the made-up
// program its flow streams ran, which seed this target) at 0x400000, a fixed section of the
// branches the trace decides in other ways (far branches, TSX, syscalls, VMX, PTWRITE, CR3) at
// 0x1000, and the input's code at 0x2000 or over the program.
// Checks: next_block() and next_path() give what next() gives one instruction at a time (the same
// instructions, events, statuses and errors; FlowWalk's two ways too), and ipt flow -j 2 prints
// what -j 1 prints; a difference aborts. `ipt flow`'s loop (FlowRun) runs with the options chosen.
#include <algorithm>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ipt/errors.hpp"
#include "ipt/flow_driver.hpp"
#include "ipt/flow_walk.hpp"
#include "ipt/image.hpp"
#include "ipt/insn_decoder.hpp"
#include "ipt_flow_transcript.hpp"

using namespace ringscope::ipt;
using namespace ipt_flow_transcript;

namespace {

// Branches a random trace can reach with a short TIP (IP bytes 0x1000..): each kind the decoder
// binds events to or follows in a way of its own.
const uint8_t kSpecial[] = {
    0xc7, 0xf8, 0x00, 0x00, 0x00, 0x00,  // xbegin +0
    0x0f, 0x01, 0xd5,                    // xend
    0xc6, 0xf8, 0x00,                    // xabort 0
    0x0f, 0x05,                          // syscall
    0x48, 0x0f, 0x07,                    // sysretq
    0x48, 0xcf,                          // iretq
    0xcc,                                // int3
    0xcd, 0x80,                          // int 0x80
    0xff, 0x18,                          // call far [rax]
    0xff, 0x28,                          // jmp far [rax]
    0xcb,                                // retf
    0xf3, 0x48, 0x0f, 0xae, 0xe0,        // ptwrite rax
    0x0f, 0x01, 0xc2,                    // vmlaunch
    0x0f, 0x01, 0xc3,                    // vmresume
    0x0f, 0x01, 0xc1,                    // vmcall
    0x0f, 0x22, 0xd8,                    // mov cr3, rax
    0xff, 0xe0,                          // jmp rax
    0xff, 0xd0,                          // call rax
    0x74, 0x02,                          // jz +2
    0xe2, 0xfe,                          // loop -2
    0xe3, 0x00,                          // jrcxz +0
    0xe8, 0x00, 0x00, 0x00, 0x00,        // call +0
    0xeb, 0x00,                          // jmp +0
    0x90,                                // nop
    0xc2, 0x08, 0x00,                    // ret 8
    0x0f, 0x34,                          // sysenter
    0x0f, 0x35,                          // sysexit
    0xf4,                                // hlt
    0x0f, 0x0b,                          // ud2
    0xc3,                                // ret
};

constexpr uint64_t kProgram = 0x400000, kSpecialAt = 0x1000, kOwnAt = 0x2000;
// Instructions one transcript takes at most (code that loops on direct branches takes no trace).
constexpr uint64_t kMaxInsn = 20000;

const std::vector<uint8_t>& program() {
    static const std::vector<uint8_t> code = [] {
        std::ifstream in(std::string(RINGSCOPE_SOURCE_DIR) + "/tests/data/ipt/flow/code.bin",
                         std::ios::binary);
        std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        if (bytes.empty()) {
            std::fprintf(stderr, "fuzz_ipt_flow: tests/data/ipt/flow/code.bin not found\n");
            std::abort();
        }
        return bytes;
    }();
    return code;
}

struct Input {
    FlowOptions o;
    Image image;
    bool jobs = false;  // compare -j 2 with -j 1
    const uint8_t* pt = nullptr;
    size_t pt_size = 0;
};

// a: decoder and printing, b: errata, filter, -j, where the own code goes; c: its size and
// timing; d: -j's part size or the own code's place in the program.
bool parse(const uint8_t* data, size_t size, Input& in) {
    if (size < 4) return false;
    const uint8_t a = data[0], b = data[1], c = data[2], d = data[3];
    const size_t own = c & 63u;
    if (size < 4 + own) return false;
    FlowOptions& o = in.o;
    o.block = a & 1;
    o.resync = a & 2;
    o.quiet = a & 4;
    o.no_inst = a & 8;
    o.check = a & 16;
    o.event_ip = o.event_time = a & 32;
    o.event_tick = a & 64;
    o.config.packets = (a & 128) ? PacketSet::libipt_2_0_5 : PacketSet::full;
    Errata& e = o.config.errata;
    e.bdm64 = b & 1;
    e.skd022 = b & 2;
    e.skd010 = e.apl12 = e.apl11 = b & 4;
    e.bdm70 = e.skd007 = b & 8;
    o.show_blocks = o.end_on_call = o.end_on_jump = b & 16;
    in.jobs = b & 32;
    if (b & 128) {  // a FilterEn range over the program's first half (erratum SKL014)
        e.skl014 = true;
        o.filter.cfg = 1;
        o.filter.a[0] = kProgram;
        o.filter.b[0] = kProgram + program().size() / 2;
    }
    o.config.mtc_freq = (c >> 6) * 3;
    o.config.cpuid_0x15_eax = 2;
    o.config.cpuid_0x15_ebx = (c & 64) ? 7 : 0;
    o.config.keep_tcal_on_ovf = c & 128;
    o.part_bytes = 64 + uint64_t{d} * 8;
    // Code that loops on direct branches: stopped sooner than ipt flow does, so that printing it
    // takes a second, not minutes, under ASan. FlowRun takes next_path() while 65536 instructions
    // (InsnDecoder::kMaxWalk runs of BlockCache::kMaxRun) stay below it: for the first 4096.
    o.max_insn_without_trace = (uint64_t{1} << 16) + 4096;
    in.image.add_bytes(program().data(), program().size(), kProgram, "program");
    in.image.add_bytes(kSpecial, sizeof kSpecial, kSpecialAt, "special");
    if (own) {
        const uint64_t at = (b & 64) ? kProgram + (uint64_t{d} * 16) % program().size() : kOwnAt;
        in.image.add_bytes(data + 4, own, at, "own");
    }
    in.pt = data + 4 + own;
    in.pt_size = size - 4 - own;
    o.config.begin = in.pt;
    o.config.end = in.pt + in.pt_size;
    return true;
}

// Every instruction, event, status and error of ptxed's loop over the decoder the call's way.
Transcript transcript(const Input& in, Call call) {
    InsnDecoder d(in.o.config, in.image, in.o.filter);
    return ipt_flow_transcript::transcript(d, call, {2000, kMaxInsn, in.o.resync});
}

// FlowWalk (ipt calls, ipt profile) a run at a time and a path at a time.
Transcript walk(const Input& in, bool one_run) {
    InsnDecoder d(in.o.config, in.image, in.o.filter);
    FlowWalk w(d);
    Transcript t;
    for (uint64_t steps = 0;; ++steps) {
        if (steps > 2 * kMaxInsn) {
            t.cut = true;
            break;
        }
        InsnPath p;
        const FlowWalk::Step s = w.next(p, one_run);
        if (s == FlowWalk::Step::end) break;
        if (s == FlowWalk::Step::synced) item(t, kSynced, 0);
        if (s == FlowWalk::Step::error) item(t, kError, w.status());
        if (s != FlowWalk::Step::run) continue;
        if (t.insn >= kMaxInsn) {
            t.cut = true;
            break;
        }
        if (w.interrupted()) item(t, kMark, 2);
        for (uint32_t r = 0; r < p.nruns; ++r) {
            const CachedRun& c = d.block_cache().at(p.runs[r]);
            insns(t, c.ip, c.ninsn, d.block_cache().sizes(c));
        }
        if (!p.nruns) insns(t, p.single.ip, p.single.ninsn, p.single.sizes);
    }
    return t;
}

// Aborts, with the first item where they part, unless b says what a says (or, cut short, the same
// as far as it goes).
void expect_same(const Transcript& a, const Transcript& b, const char* what) {
    const std::string difference = ipt_flow_transcript::first_difference(a, b);
    if (difference.empty()) return;
    std::fprintf(stderr, "fuzz_ipt_flow: %s %s\n", what, difference.c_str());
    std::abort();
}

// Stops ipt flow's loop past this many instructions in all, so that no input takes seconds (as
// kMaxInsn the transcripts); then -j is not compared.
class Budget final : public FlowHook {
  public:
    explicit Budget(const FlowStats& stats) : stats_(stats) {}
    Step at_step(InsnDecoder&, const FlowLoopState&, uint64_t) override {
        if (stats_.insn <= kMaxFlowInsn) return go;
        spent = true;
        return stop;
    }
    bool spent = false;

  private:
    static constexpr uint64_t kMaxFlowInsn = uint64_t{1} << 18;
    const FlowStats& stats_;
};

// ipt flow's output (with jobs > 1, -j's); false when the serial decode ran past its budget.
bool flow_output(const Input& in, unsigned jobs, FlowStats& stats, std::string* text) {
    char* buf = nullptr;
    size_t size = 0;
    FlowOptions o = in.o;
    static std::FILE* null = std::fopen("/dev/null", "w");
    o.out = text ? open_memstream(&buf, &size) : null;
    o.jobs = jobs;
    bool within = true;
    if (jobs > 1) {
        flow_decode_parallel(in.image, o, stats);
    } else {
        InsnDecoder d(o.config, in.image, o.filter);
        d.set_tick_events(o.event_tick);
        Budget budget(stats);
        FlowRun(d, in.image, o, stats, &budget).run();
        within = !budget.spent;
    }
    if (text) {
        std::fclose(o.out);
        text->assign(buf, size);
        std::free(buf);
    }
    return within;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Input in;
    if (!parse(data, size, in)) return 0;
    const Transcript next = transcript(in, Call::next);
    expect_same(next, transcript(in, Call::block), "next_block differs from next");
    expect_same(next, transcript(in, Call::path), "next_path differs from next");
    expect_same(walk(in, true), walk(in, false), "FlowWalk's paths differ from its runs");
    FlowStats one;
    std::string serial, parallel;
    // -j 2 (its work at most twice the serial one's) where the serial decode kept to its budget.
    if (flow_output(in, 1, one, in.jobs ? &serial : nullptr) && in.jobs) {
        FlowStats two;
        flow_output(in, 2, two, &parallel);
        if (parallel != serial || one.insn != two.insn || one.blocks != two.blocks) {
            size_t at = 0;
            while (at < serial.size() && at < parallel.size() && serial[at] == parallel[at]) ++at;
            const size_t from = at == 0 ? 0 : serial.rfind('\n', at - 1) + 1;
            std::fprintf(stderr,
                         "fuzz_ipt_flow: ipt flow -j 2 differs from -j 1 at byte %zu: \"%s\" vs \"%s\"; "
                         "counts %" PRIu64 "/%" PRIu64 " vs %" PRIu64 "/%" PRIu64 "\n",
                         at, serial.substr(from, 60).c_str(), parallel.substr(from, 60).c_str(), one.insn,
                         one.blocks, two.insn, two.blocks);
            std::abort();
        }
    }
    return 0;
}
