#include "flow_program.hpp"

#include "ipt_packet_writer.hpp"

#include <intel-pt.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>
#include <unordered_map>

namespace ringscope::ipt::bench {
namespace {

enum class Kind : uint8_t { plain, jcc, call, call_indirect, jmp, ret };

struct Instr {
    uint64_t ip;
    uint8_t size;
    Kind kind;
    uint64_t target;     // direct branches
    uint8_t taken = 50;  // conditional branches: how often taken, in percent
};

struct Rng {
    std::mt19937_64 g;
    uint64_t r(uint64_t n) { return n ? g() % n : 0; }
    bool p(int percent) { return static_cast<int>(r(100)) < percent; }
};

// Plain instructions of 1 to 5 bytes (nop; add rax, rbx; lea rax, [rax+8]; mov eax, imm32).
const std::vector<std::vector<uint8_t>> kPlain = {
    {0x90}, {0x48, 0x01, 0xd8}, {0x48, 0x8d, 0x40, 0x08}, {0xb8, 0x01, 0x02, 0x03, 0x04}, {0x31, 0xc0}};

class Assembler {
  public:
    explicit Assembler(FlowProgram& p) : p_(p) {}
    uint64_t here() const { return p_.address + p_.code.size(); }
    void emit(const std::vector<uint8_t>& bytes, Kind kind, uint64_t target = 0) {
        list.push_back({here(), static_cast<uint8_t>(bytes.size()), kind, target, 50});
        p_.size_at.push_back(static_cast<uint8_t>(bytes.size()));
        p_.size_at.insert(p_.size_at.end(), bytes.size() - 1, 0);
        static const uint8_t kFlow[] = {flow_plain,    flow_cond,   flow_direct,
                                        flow_indirect, flow_direct, flow_indirect};
        p_.kind_at.push_back(kFlow[static_cast<int>(kind)]);
        p_.kind_at.insert(p_.kind_at.end(), bytes.size() - 1, 0);
        p_.code.insert(p_.code.end(), bytes.begin(), bytes.end());
    }
    // A branch with a 32-bit displacement whose target is patched later.
    void branch(std::vector<uint8_t> opcode, Kind kind) {
        opcode.insert(opcode.end(), 4, 0);
        emit(opcode, kind);
        patches.push_back(list.size() - 1);
    }
    std::vector<Instr> list;
    std::vector<size_t> patches;

  private:
    FlowProgram& p_;
};

struct Built {
    FlowProgram program;
    std::vector<Instr> list;
};

Built build(const FlowOptions& o) {
    Built b;
    Rng rng{std::mt19937_64(o.seed)};
    b.program.address = o.address;
    Assembler a(b.program);
    const int n = o.functions;
    // Per function, its blocks' starts; branch targets are chosen first and patched at the end.
    std::vector<std::vector<uint64_t>> blocks(n);
    std::vector<std::pair<size_t, std::pair<int, int>>> to_block;  // instr, (function, block)
    std::vector<std::pair<size_t, int>> to_function;
    for (int f = 0; f < n; ++f) {
        b.program.function_start.push_back(a.here());
        b.program.function_name.push_back(f ? "f" + std::to_string(f) : "main");
        const int nblocks = f ? 3 + static_cast<int>(rng.r(10)) : 2;
        for (int k = 0; k < nblocks; ++k) {
            blocks[f].push_back(a.here());
            for (uint64_t i = 1 + rng.r(6); i--;) a.emit(kPlain[rng.r(kPlain.size())], Kind::plain);
            if (f == 0) {
                // main: call rax to any function, then loop.
                if (k == 0) a.emit({0xff, 0xd0}, Kind::call_indirect);
                if (k == 1) {
                    a.branch({0xe9}, Kind::jmp);
                    to_block.push_back({a.list.size() - 1, {0, 0}});
                }
                continue;
            }
            if (k == nblocks - 1) {
                a.emit({0xc3}, Kind::ret);
                break;
            }
            const uint64_t c = rng.r(100);
            const bool callee = f + 1 < n;
            if (c < 45) {
                a.branch({0x0f, static_cast<uint8_t>(0x80 | rng.r(16))}, Kind::jcc);
                to_block.push_back(
                    {a.list.size() - 1, {f, k + 1 + static_cast<int>(rng.r(nblocks - k - 1))}});
            } else if (c < 55) {
                a.branch({0x0f, 0x85}, Kind::jcc);  // a loop
                to_block.push_back({a.list.size() - 1, {f, static_cast<int>(rng.r(k + 1))}});
            } else if (c < 70 && callee) {
                a.branch({0xe8}, Kind::call);
                to_function.push_back({a.list.size() - 1, f + 1 + static_cast<int>(rng.r(n - f - 1))});
            } else if (c < 76 && callee) {
                a.emit({0xff, 0xd0}, Kind::call_indirect);
            } else if (c < 84) {
                a.branch({0xe9}, Kind::jmp);
                to_block.push_back(
                    {a.list.size() - 1, {f, k + 1 + static_cast<int>(rng.r(nblocks - k - 1))}});
            }
        }
    }
    auto patch = [&](size_t i, uint64_t target) {
        Instr& in = a.list[i];
        in.target = target;
        const int32_t disp = static_cast<int32_t>(target - (in.ip + in.size));
        std::memcpy(&b.program.code[in.ip + in.size - 4 - b.program.address], &disp, 4);
    };
    for (auto& [i, fb] : to_block) patch(i, blocks[fb.first][fb.second]);
    for (auto& [i, f] : to_function) patch(i, b.program.function_start[f]);
    // As in real code, most conditional branches go mostly one way: 70 % are taken 3 % or 97 % of
    // the time, the others 10-90 %; loops go back 40-80 % of the time.
    for (Instr& in : a.list) {
        if (in.kind != Kind::jcc) continue;
        if (in.target < in.ip)
            in.taken = static_cast<uint8_t>(40 + rng.r(41));
        else if (rng.p(70))
            in.taken = rng.p(50) ? 3 : 97;
        else
            in.taken = static_cast<uint8_t>(10 + rng.r(81));
    }
    b.list = std::move(a.list);
    return b;
}

class Tracer {
  public:
    Tracer(std::vector<uint8_t>& out, bool cyc) : out_(out), w_(out), cyc_(cyc) {}

    void bit(bool taken) {
        tnt_ = (tnt_ << 1) | (taken ? 1 : 0);
        if (++bits_ == 6) flush();
        if (++branches_ % 64 == 0 && !cyc_) {
            flush();
            pt_packet pk{};
            pk.type = ppt_mtc;
            pk.payload.mtc.ctc = static_cast<uint8_t>(++ctc_);
            w_.put(pk);
        }
    }
    void flush() {
        if (!bits_) return;
        pt_packet pk{};
        pk.type = ppt_tnt_8;
        pk.payload.tnt.bit_size = static_cast<uint8_t>(bits_);
        pk.payload.tnt.payload = tnt_;
        w_.put(pk);
        tnt_ = 0;
        bits_ = 0;
        cyc();
    }
    void tip(uint64_t ip) {
        flush();
        pt_packet pk{};
        pk.type = ppt_tip;
        const bool near = (ip >> 32) == (last_ip_ >> 32);
        pk.payload.ip.ipc = near ? pt_ipc_update_32 : pt_ipc_sext_48;
        pk.payload.ip.ip = near ? (ip & 0xffffffff) : ip;
        last_ip_ = ip;
        w_.put(pk);
        cyc();
    }
    void psb(uint64_t ip, uint64_t tsc) {
        flush();
        psb_tsc(tsc);
        mode_exec();
        put_ip(ppt_fup, pt_ipc_sext_48, ip);
        put(ppt_psbend);
    }
    // Tracing off at ip around a PSB+ (which then has no FUP), and on again at ip.
    void psb_disabled(uint64_t ip, uint64_t tsc) {
        flush();
        put_ip(ppt_fup, pt_ipc_sext_48, ip);
        put_ip(ppt_tip_pgd, pt_ipc_suppressed, 0);
        psb_tsc(tsc);
        put(ppt_psbend);
        mode_exec();
        put_ip(ppt_tip_pge, pt_ipc_sext_48, ip);
    }
    size_t size() const { return out_.size(); }

  private:
    // With cyc_: the cycles since the last packet, made up (from the branches traced); none
    // after every fourth packet (the next one's time is then this one's).
    void cyc() {
        if (!cyc_ || ++packets_ % 4 == 0) return;
        pt_packet pk{};
        pk.type = ppt_cyc;
        pk.payload.cyc.value = 1 + (branches_ * 7) % 61;
        w_.put(pk);
    }
    void put(pt_packet_type type) {
        pt_packet pk{};
        pk.type = type;
        w_.put(pk);
    }
    void put_ip(pt_packet_type type, pt_ip_compression ipc, uint64_t ip) {
        pt_packet pk{};
        pk.type = type;
        pk.payload.ip.ipc = ipc;
        pk.payload.ip.ip = ip;
        if (ipc != pt_ipc_suppressed) last_ip_ = ip;
        w_.put(pk);
    }
    void psb_tsc(uint64_t tsc) {
        put(ppt_psb);
        pt_packet pk{};
        pk.type = ppt_tsc;
        pk.payload.tsc.tsc = tsc;
        w_.put(pk);
    }
    void mode_exec() {
        pt_packet pk{};
        pk.type = ppt_mode;
        pk.payload.mode.leaf = pt_mol_exec;
        pk.payload.mode.bits.exec.csl = 1;
        w_.put(pk);
    }

    std::vector<uint8_t>& out_;
    testing::PacketWriter w_;
    uint64_t tnt_ = 0, last_ip_ = 0, branches_ = 0, packets_ = 0;
    int bits_ = 0;
    unsigned ctc_ = 0;
    bool cyc_ = false;
};

}  // namespace

FlowProgram make_program(const FlowOptions& o) {
    return build(o).program;
}

FlowTrace trace_program(const FlowProgram& program, const FlowOptions& o) {
    Built b = build(o);
    if (b.program.code != program.code) throw std::runtime_error("trace_program: not make_program's program");
    std::unordered_map<uint64_t, size_t> at;
    for (size_t i = 0; i < b.list.size(); ++i) at[b.list[i].ip] = i;
    Rng rng{std::mt19937_64(o.seed * 31 + 7)};
    FlowTrace t;
    Tracer tr(t.pt, o.cyc);
    std::vector<uint64_t> stack;
    // Returns whose call was traced since the last PSB are compressed (at most 64 deep).
    size_t compressible = 0;
    uint64_t ip = program.function_start[0], tsc = 0x1000000, next_psb = 0;
    int psbs = 0;
    const int n = o.functions;
    while (t.pt.size() < o.pt_bytes) {
        if (t.pt.size() >= next_psb) {
            if (o.disable_every && ++psbs % o.disable_every == 0)
                tr.psb_disabled(ip, tsc += 0x10000);
            else
                tr.psb(ip, tsc += 0x10000);
            next_psb = t.pt.size() + o.psb_period;
            if (!o.compress_across_psb) compressible = 0;
        }
        const Instr& in = b.list[at.at(ip)];
        ++t.insn;
        const uint64_t after = in.ip + in.size;
        switch (in.kind) {
            case Kind::plain:
                ip = after;
                break;
            case Kind::jcc: {
                const bool taken = rng.p(in.taken);
                tr.bit(taken);
                ip = taken ? in.target : after;
                break;
            }
            case Kind::jmp:
                ip = in.target;
                break;
            case Kind::call:
            case Kind::call_indirect: {
                // Only to later functions: the call graph has no cycles.
                const int from = static_cast<int>(
                    std::upper_bound(program.function_start.begin(), program.function_start.end(), in.ip) -
                    program.function_start.begin() - 1);
                stack.push_back(after);
                if (compressible < 64) ++compressible;
                if (in.kind == Kind::call) {
                    ip = in.target;
                } else {
                    ip = program.function_start[from + 1 + rng.r(n - from - 1)];
                    tr.tip(ip);
                }
                break;
            }
            case Kind::ret:
                ip = stack.back();
                stack.pop_back();
                if (compressible) {
                    --compressible;
                    tr.bit(true);
                } else {
                    tr.tip(ip);
                }
                break;
        }
    }
    tr.flush();
    return t;
}

}  // namespace ringscope::ipt::bench
