#include "ipt/insn_class.hpp"

#include <Zydis/Zydis.h>

#include "ipt/errors.hpp"

namespace ringscope::ipt {
namespace {

// One decoder per mode, made once (ZydisDecoderInit only fills a small struct).
struct Decoders {
    ZydisDecoder by_mode[4];
    Decoders() {
        ZydisDecoderInit(&by_mode[em_16bit], ZYDIS_MACHINE_MODE_LEGACY_16, ZYDIS_STACK_WIDTH_16);
        ZydisDecoderInit(&by_mode[em_32bit], ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
        ZydisDecoderInit(&by_mode[em_64bit], ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    }
};

const Decoders kDecoders;

bool zydis_decode(ZydisDecodedInstruction& zi, const uint8_t* bytes, size_t n, ExecMode mode) noexcept {
    if (mode != em_16bit && mode != em_32bit && mode != em_64bit) return false;
    ZydisDecoderContext context;
    return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&kDecoders.by_mode[mode], &context, bytes, n, &zi));
}

bool is_far(const ZydisDecodedInstruction& zi) noexcept {
    return zi.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
}

// Instructions newer than Debian 12's Zydis 4.0 that change the flow (64-bit mode only): ERETU
// and ERETS (FRED: F3/F2 0F 01 CA, far returns) and JMPABS (APX: D5 00 A1 imm64, a jump libipt
// takes to be indirect: the trace gives its target). True when bytes start with one.
bool decode_newer(DecodedInsn& out, const uint8_t* bytes, size_t n, ExecMode mode) noexcept {
    if (mode != em_64bit) return false;
    if (n >= 4 && (bytes[0] == 0xf3 || bytes[0] == 0xf2) && bytes[1] == 0x0f && bytes[2] == 0x01 &&
        bytes[3] == 0xca) {
        out.size = 4;
        out.iclass = InsnClass::far_return;
        out.kind = InsnKind::changes_cpl;
        return true;
    }
    if (n >= 11 && bytes[0] == 0xd5 && bytes[1] == 0x00 && bytes[2] == 0xa1) {
        out.size = 11;
        out.iclass = InsnClass::jump;
        return true;
    }
    return false;
}

// FF /7 is reserved: Zydis rejects it, libipt's length decoder takes it as a plain instruction
// (its length from the ModRM byte). Code reached through broken trace runs into it (the bytes of a
// negative displacement, FF FF). True when bytes start with one; out gets its length.
bool decode_ff7(DecodedInsn& out, const uint8_t* bytes, size_t n, ExecMode mode) noexcept {
    size_t i = 0;
    bool addr16 = mode == em_16bit;
    for (; i < n && i < 14; ++i) {
        const uint8_t b = bytes[i];
        if (b == 0x67) {
            addr16 = mode == em_32bit;
        } else if (b == 0x66 || b == 0xf2 || b == 0xf3 || b == 0xf0 || b == 0x2e || b == 0x36 || b == 0x3e ||
                   b == 0x26 || b == 0x64 || b == 0x65) {
            continue;
        } else if (mode != em_64bit || (b & 0xf0) != 0x40) {  // REX prefixes are skipped
            break;
        }
    }
    if (i + 1 >= n || bytes[i] != 0xff || ((bytes[i + 1] >> 3) & 7) != 7) return false;
    const uint8_t modrm = bytes[i + 1], mod = modrm >> 6, rm = modrm & 7;
    size_t size = i + 2;
    if (mod != 3) {
        if (addr16) {
            size += mod == 1 ? 1 : mod == 2 ? 2 : rm == 6 ? 2 : 0;
        } else {
            if (rm == 4) {
                if (size >= n) return false;
                const uint8_t base = bytes[size] & 7;
                ++size;
                if (mod == 0 && base == 5) size += 4;
            }
            size += mod == 1 ? 1 : mod == 2 ? 4 : (rm == 5 ? 4 : 0);
        }
    }
    if (size > n || size > 15) return false;
    out.size = static_cast<uint8_t>(size);
    out.iclass = InsnClass::other;
    return true;
}

// The class and kind of the instruction Zydis decoded, by its mnemonic (libipt's pt_ild
// classes); out.iclass stays other for those that do not branch.
void classify(DecodedInsn& out, const ZydisDecodedInstruction& zi) noexcept {
    switch (zi.mnemonic) {
        case ZYDIS_MNEMONIC_CALL:
            out.iclass = is_far(zi) ? InsnClass::far_call : InsnClass::call;
            break;
        case ZYDIS_MNEMONIC_RET:
            out.iclass = is_far(zi) ? InsnClass::far_return : InsnClass::ret;
            break;
        case ZYDIS_MNEMONIC_JMP:
            out.iclass = is_far(zi) ? InsnClass::far_jump : InsnClass::jump;
            break;
        case ZYDIS_MNEMONIC_JB:
        case ZYDIS_MNEMONIC_JBE:
        case ZYDIS_MNEMONIC_JCXZ:
        case ZYDIS_MNEMONIC_JECXZ:
        case ZYDIS_MNEMONIC_JL:
        case ZYDIS_MNEMONIC_JLE:
        case ZYDIS_MNEMONIC_JNB:
        case ZYDIS_MNEMONIC_JNBE:
        case ZYDIS_MNEMONIC_JNL:
        case ZYDIS_MNEMONIC_JNLE:
        case ZYDIS_MNEMONIC_JNO:
        case ZYDIS_MNEMONIC_JNP:
        case ZYDIS_MNEMONIC_JNS:
        case ZYDIS_MNEMONIC_JNZ:
        case ZYDIS_MNEMONIC_JO:
        case ZYDIS_MNEMONIC_JP:
        case ZYDIS_MNEMONIC_JRCXZ:
        case ZYDIS_MNEMONIC_JS:
        case ZYDIS_MNEMONIC_JZ:
        case ZYDIS_MNEMONIC_LOOP:
        case ZYDIS_MNEMONIC_LOOPE:
        case ZYDIS_MNEMONIC_LOOPNE:
            out.iclass = InsnClass::cond_jump;
            break;
        case ZYDIS_MNEMONIC_INT:
        case ZYDIS_MNEMONIC_INT1:
        case ZYDIS_MNEMONIC_INT3:
        case ZYDIS_MNEMONIC_INTO:
        case ZYDIS_MNEMONIC_SYSCALL:
        case ZYDIS_MNEMONIC_SYSENTER:
            out.iclass = InsnClass::far_call;
            out.kind = InsnKind::changes_cpl;
            break;
        case ZYDIS_MNEMONIC_VMCALL:
            out.iclass = InsnClass::far_call;
            break;
        case ZYDIS_MNEMONIC_IRET:
        case ZYDIS_MNEMONIC_IRETD:
        case ZYDIS_MNEMONIC_IRETQ:
        case ZYDIS_MNEMONIC_SYSRET:
        case ZYDIS_MNEMONIC_SYSEXIT:
            out.iclass = InsnClass::far_return;
            out.kind = InsnKind::changes_cpl;
            break;
        case ZYDIS_MNEMONIC_UIRET:
            // Back from a user interrupt (libipt master's pt_ild: a far return).
            out.iclass = InsnClass::far_return;
            break;
        case ZYDIS_MNEMONIC_VMLAUNCH:
            out.iclass = InsnClass::far_return;
            out.kind = InsnKind::vmlaunch;
            break;
        case ZYDIS_MNEMONIC_VMRESUME:
            out.iclass = InsnClass::far_return;
            out.kind = InsnKind::vmresume;
            break;
        case ZYDIS_MNEMONIC_VMPTRLD:
            out.kind = InsnKind::vmptrld;
            break;
        case ZYDIS_MNEMONIC_PTWRITE:
            out.iclass = InsnClass::ptwrite;
            break;
        case ZYDIS_MNEMONIC_MOV:
            // MOV CR3, r: 0F 22 with ModRM.reg 3.
            if (zi.opcode_map == ZYDIS_OPCODE_MAP_0F && zi.opcode == 0x22 && zi.raw.modrm.reg == 3)
                out.kind = InsnKind::mov_cr3;
            break;
        default:
            break;
    }
}

}  // namespace

int decode_insn(DecodedInsn& out, const uint8_t* bytes, size_t n, ExecMode mode) noexcept {
    ZydisDecodedInstruction zi;
    out = DecodedInsn{};
    if (decode_newer(out, bytes, n, mode)) return 0;
    if (!zydis_decode(zi, bytes, n, mode)) return decode_ff7(out, bytes, n, mode) ? 0 : -pte_bad_insn;
    out.size = zi.length;
    out.iclass = InsnClass::other;
    const bool relative = zi.raw.imm[0].is_relative;
    classify(out, zi);
    switch (out.iclass) {
        case InsnClass::call:
        case InsnClass::jump:
        case InsnClass::cond_jump:
            if (relative) {
                out.is_direct = true;
                out.displacement = static_cast<int32_t>(zi.raw.imm[0].value.s);
            }
            break;
        default:
            break;
    }
    return 0;
}

InsnClass class_by_category(const uint8_t* bytes, size_t n, ExecMode mode) noexcept {
    ZydisDecodedInstruction zi;
    DecodedInsn newer;
    if (decode_newer(newer, bytes, n, mode)) return newer.iclass;
    if (!zydis_decode(zi, bytes, n, mode)) return InsnClass::error;
    const bool far = is_far(zi);
    switch (zi.meta.category) {
        case ZYDIS_CATEGORY_CALL:
            return far ? InsnClass::far_call : InsnClass::call;
        case ZYDIS_CATEGORY_RET:
            // SYSRET and IRET are returns too, far ones.
            return far || zi.mnemonic != ZYDIS_MNEMONIC_RET ? InsnClass::far_return : InsnClass::ret;
        case ZYDIS_CATEGORY_UNCOND_BR:
            return far ? InsnClass::far_jump : InsnClass::jump;
        case ZYDIS_CATEGORY_COND_BR:
            return InsnClass::cond_jump;
        case ZYDIS_CATEGORY_INTERRUPT:
        case ZYDIS_CATEGORY_SYSCALL:
            return zi.mnemonic == ZYDIS_MNEMONIC_IRET || zi.mnemonic == ZYDIS_MNEMONIC_IRETD ||
                           zi.mnemonic == ZYDIS_MNEMONIC_IRETQ
                       ? InsnClass::far_return
                       : InsnClass::far_call;
        case ZYDIS_CATEGORY_SYSRET:
            return InsnClass::far_return;
        default:
            break;
    }
    switch (zi.mnemonic) {
        case ZYDIS_MNEMONIC_VMCALL:
            return InsnClass::far_call;
        case ZYDIS_MNEMONIC_VMLAUNCH:
        case ZYDIS_MNEMONIC_VMRESUME:
        case ZYDIS_MNEMONIC_SYSEXIT:
        case ZYDIS_MNEMONIC_UIRET:
            return InsnClass::far_return;
        case ZYDIS_MNEMONIC_PTWRITE:
            return InsnClass::ptwrite;
        default:
            return InsnClass::other;
    }
}

const char* insn_class_name(InsnClass c) noexcept {
    static const char* const kNames[] = {"unknown",   "other",    "near call",  "near return", "near jump",
                                         "cond jump", "far call", "far return", "far jump",    "ptwrite"};
    return kNames[static_cast<int>(c)];
}

int next_ip(uint64_t& ip, uint64_t insn_ip, const DecodedInsn& insn) noexcept {
    uint64_t next = insn_ip + insn.size;
    switch (insn.iclass) {
        case InsnClass::other:
        case InsnClass::ptwrite:
            break;
        case InsnClass::call:
        case InsnClass::jump:
            if (!insn.is_direct) return -pte_bad_query;
            next += static_cast<uint64_t>(static_cast<int64_t>(insn.displacement));
            break;
        case InsnClass::error:
            return -pte_bad_insn;
        default:
            return -pte_bad_query;
    }
    ip = next;
    return 0;
}

}  // namespace ringscope::ipt
