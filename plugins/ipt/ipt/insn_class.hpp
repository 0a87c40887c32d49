// An x86 instruction's length and what it does to the flow of control, as libipt's instruction
// length decoder (pt_ild) classifies it: the branch kinds the trace must answer (conditional, near
// call/return/jump, direct or not, far transfers), and the instructions events bind to (MOV CR3,
// VMLAUNCH/VMRESUME, VMPTRLD, PTWRITE). The decoding is Zydis's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ipt/packet.hpp"

namespace ringscope::ipt {

// libipt's enum pt_insn_class, in its order.
enum class InsnClass : uint8_t {
    error,
    other,
    call,
    ret,
    jump,
    cond_jump,
    far_call,
    far_return,
    far_jump,
    ptwrite
};

// What events bind to (libipt's pt_insn_ext iclass, the few kinds that matter).
enum class InsnKind : uint8_t { plain, mov_cr3, vmlaunch, vmresume, vmptrld, changes_cpl };

struct DecodedInsn {
    uint8_t size = 0;
    InsnClass iclass = InsnClass::error;
    InsnKind kind = InsnKind::plain;
    bool is_direct = false;    // a relative branch: the target is ip + size + displacement
    int32_t displacement = 0;  // of a direct branch

    bool operator==(const DecodedInsn&) const = default;
};

// Decodes the instruction at bytes[0, n) in mode: 0, or -pte_bad_insn (no valid instruction, or
// more bytes needed than n; -pte_bad_insn for an unknown mode too).
int decode_insn(DecodedInsn& out, const uint8_t* bytes, size_t n, ExecMode mode) noexcept;

// The class by the decoder's instruction category instead of by mnemonic: a second opinion for
// `ipt flow --check` (InsnClass::error when the bytes do not decode).
InsnClass class_by_category(const uint8_t* bytes, size_t n, ExecMode mode) noexcept;

const char* insn_class_name(InsnClass c) noexcept;

// Where a branch that needs no trace goes, after the instruction (libipt's pt_insn_next_ip): 0,
// or -pte_bad_query when the trace must tell (conditional, indirect, far, returns).
int next_ip(uint64_t& ip, uint64_t insn_ip, const DecodedInsn& insn) noexcept;

inline bool is_far_branch(const DecodedInsn& i) noexcept {
    return i.iclass == InsnClass::far_call || i.iclass == InsnClass::far_return ||
           i.iclass == InsnClass::far_jump;
}

}  // namespace ringscope::ipt
