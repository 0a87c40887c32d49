#include "exit_reasons.hpp"

#include <algorithm>

namespace ringscope::kvm {
namespace {

struct Named {
    int value;
    const char* name;
};

// The values and names of libtraceevent 1.7.1 plugin_kvm.c (its VMX_EXIT_REASONS / SVM_EXIT_REASONS).
constexpr Named kVmx[] = {
    {0, "EXCEPTION_NMI"},
    {1, "EXTERNAL_INTERRUPT"},
    {2, "TRIPLE_FAULT"},
    {7, "PENDING_INTERRUPT"},
    {8, "NMI_WINDOW"},
    {9, "TASK_SWITCH"},
    {10, "CPUID"},
    {12, "HLT"},
    {13, "INVD"},
    {14, "INVLPG"},
    {15, "RDPMC"},
    {16, "RDTSC"},
    {18, "VMCALL"},
    {19, "VMCLEAR"},
    {20, "VMLAUNCH"},
    {21, "VMPTRLD"},
    {22, "VMPTRST"},
    {23, "VMREAD"},
    {24, "VMRESUME"},
    {25, "VMWRITE"},
    {26, "VMOFF"},
    {27, "VMON"},
    {28, "CR_ACCESS"},
    {29, "DR_ACCESS"},
    {30, "IO_INSTRUCTION"},
    {31, "MSR_READ"},
    {32, "MSR_WRITE"},
    {36, "MWAIT_INSTRUCTION"},
    {39, "MONITOR_INSTRUCTION"},
    {40, "PAUSE_INSTRUCTION"},
    {41, "MCE_DURING_VMENTRY"},
    {43, "TPR_BELOW_THRESHOLD"},
    {44, "APIC_ACCESS"},
    {45, "EOI_INDUCED"},
    {48, "EPT_VIOLATION"},
    {49, "EPT_MISCONFIG"},
    {50, "INVEPT"},
    {52, "PREEMPTION_TIMER"},
    {54, "WBINVD"},
    {55, "XSETBV"},
    {56, "APIC_WRITE"},
    {58, "INVPCID"},
    {62, "PML_FULL"},
    {63, "XSAVES"},
    {64, "XRSTORS"},
};

constexpr Named kSvm[] = {
    {0x000, "EXIT_READ_CR0"},
    {0x003, "EXIT_READ_CR3"},
    {0x004, "EXIT_READ_CR4"},
    {0x008, "EXIT_READ_CR8"},
    {0x010, "EXIT_WRITE_CR0"},
    {0x013, "EXIT_WRITE_CR3"},
    {0x014, "EXIT_WRITE_CR4"},
    {0x018, "EXIT_WRITE_CR8"},
    {0x020, "EXIT_READ_DR0"},
    {0x021, "EXIT_READ_DR1"},
    {0x022, "EXIT_READ_DR2"},
    {0x023, "EXIT_READ_DR3"},
    {0x024, "EXIT_READ_DR4"},
    {0x025, "EXIT_READ_DR5"},
    {0x026, "EXIT_READ_DR6"},
    {0x027, "EXIT_READ_DR7"},
    {0x030, "EXIT_WRITE_DR0"},
    {0x031, "EXIT_WRITE_DR1"},
    {0x032, "EXIT_WRITE_DR2"},
    {0x033, "EXIT_WRITE_DR3"},
    {0x034, "EXIT_WRITE_DR4"},
    {0x035, "EXIT_WRITE_DR5"},
    {0x036, "EXIT_WRITE_DR6"},
    {0x037, "EXIT_WRITE_DR7"},
    {0x040, "EXIT_EXCP_DE"},
    {0x041, "EXIT_EXCP_DB"},
    {0x043, "EXIT_EXCP_BP"},
    {0x044, "EXIT_EXCP_OF"},
    {0x045, "EXIT_EXCP_BR"},
    {0x046, "EXIT_EXCP_UD"},
    {0x047, "EXIT_EXCP_NM"},
    {0x048, "EXIT_EXCP_DF"},
    {0x04a, "EXIT_EXCP_TS"},
    {0x04b, "EXIT_EXCP_NP"},
    {0x04c, "EXIT_EXCP_SS"},
    {0x04d, "EXIT_EXCP_GP"},
    {0x04e, "EXIT_EXCP_PF"},
    {0x050, "EXIT_EXCP_MF"},
    {0x051, "EXIT_EXCP_AC"},
    {0x052, "EXIT_EXCP_MC"},
    {0x053, "EXIT_EXCP_XF"},
    {0x060, "EXIT_INTR"},
    {0x061, "EXIT_NMI"},
    {0x062, "EXIT_SMI"},
    {0x063, "EXIT_INIT"},
    {0x064, "EXIT_VINTR"},
    {0x065, "EXIT_CR0_SEL_WRITE"},
    {0x066, "EXIT_IDTR_READ"},
    {0x067, "EXIT_GDTR_READ"},
    {0x068, "EXIT_LDTR_READ"},
    {0x069, "EXIT_TR_READ"},
    {0x06a, "EXIT_IDTR_WRITE"},
    {0x06b, "EXIT_GDTR_WRITE"},
    {0x06c, "EXIT_LDTR_WRITE"},
    {0x06d, "EXIT_TR_WRITE"},
    {0x06e, "EXIT_RDTSC"},
    {0x06f, "EXIT_RDPMC"},
    {0x070, "EXIT_PUSHF"},
    {0x071, "EXIT_POPF"},
    {0x072, "EXIT_CPUID"},
    {0x073, "EXIT_RSM"},
    {0x074, "EXIT_IRET"},
    {0x075, "EXIT_SWINT"},
    {0x076, "EXIT_INVD"},
    {0x077, "EXIT_PAUSE"},
    {0x078, "EXIT_HLT"},
    {0x079, "EXIT_INVLPG"},
    {0x07a, "EXIT_INVLPGA"},
    {0x07b, "EXIT_IOIO"},
    {0x07c, "EXIT_MSR"},
    {0x07d, "EXIT_TASK_SWITCH"},
    {0x07e, "EXIT_FERR_FREEZE"},
    {0x07f, "EXIT_SHUTDOWN"},
    {0x080, "EXIT_VMRUN"},
    {0x081, "EXIT_VMMCALL"},
    {0x082, "EXIT_VMLOAD"},
    {0x083, "EXIT_VMSAVE"},
    {0x084, "EXIT_STGI"},
    {0x085, "EXIT_CLGI"},
    {0x086, "EXIT_SKINIT"},
    {0x087, "EXIT_RDTSCP"},
    {0x088, "EXIT_ICEBP"},
    {0x089, "EXIT_WBINVD"},
    {0x08a, "EXIT_MONITOR"},
    {0x08b, "EXIT_MWAIT"},
    {0x08c, "EXIT_MWAIT_COND"},
    {0x08d, "EXIT_XSETBV"},
    {0x400, "EXIT_NPF"},
    {0x401, "EXIT_AVIC_INCOMPLETE_IPI"},
    {0x402, "EXIT_AVIC_UNACCELERATED_ACCESS"},
    {-1, "EXIT_ERR"},
};

template <size_t N>
const char* find_named(const Named (&table)[N], int v) noexcept {
    for (const Named& n : table)
        if (n.value == v) return n.name;
    return nullptr;
}

bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool has_lower(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

}  // namespace

const char* builtin_vmx_reason(int value) noexcept {
    return find_named(kVmx, value);
}
const char* builtin_svm_reason(int value) noexcept {
    return find_named(kSvm, value);
}

bool expression_names_field(std::string_view expr, std::string_view field) noexcept {
    for (size_t p = expr.find(field); p != std::string_view::npos; p = expr.find(field, p + 1)) {
        bool left_ok = p == 0 || !ident_char(expr[p - 1]);
        bool right_ok = p + field.size() == expr.size() || !ident_char(expr[p + field.size()]);
        if (left_ok && right_ok) return true;
    }
    return false;
}

ExitReasonNames::Table ExitReasonNames::flatten(const ValueTable& t) {
    Table out;
    out.reserve(t.entries.size());
    for (const auto& [v, name] : t.entries) out.emplace_back(v, name);
    // __print_symbolic takes the first entry that matches: keep the first of equal values.
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    out.erase(
        std::unique(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
        out.end());
    return out;
}

const std::string_view* ExitReasonNames::find(const Table& t, uint64_t v) noexcept {
    auto it = std::lower_bound(t.begin(), t.end(), v, [](const auto& e, uint64_t x) { return e.first < x; });
    return it != t.end() && it->first == v ? &it->second : nullptr;
}

ExitReasonNames::ExitReasonNames(const EventType& type, std::string_view field) {
    // The kernel's kvm_print_exit_reason(): (isa == VMX) ? __print_symbolic(reason & 0xffff, VMX...)
    // : __print_symbolic(reason, SVM...), then __print_flags(reason & ~0xffff, " ", FAILED_VMENTRY).
    std::vector<const ValueTable*> symbolic;
    for (const ValueTable& t : type.tables) {
        if (!expression_names_field(t.field, field)) continue;
        if (t.is_flags) {
            if (!vmx_flags_) vmx_flags_ = &t;
        } else {
            symbolic.push_back(&t);
        }
    }
    const ValueTable* vmx = nullptr;
    const ValueTable* svm = nullptr;
    auto masked = std::find_if(symbolic.begin(), symbolic.end(), [](const ValueTable* t) {
        return t->field.find("0xffff") != std::string::npos;
    });
    if (masked != symbolic.end()) {
        vmx = *masked;
        for (const ValueTable* t : symbolic)
            if (t != vmx) {
                svm = t;
                break;
            }
    } else if (symbolic.size() >= 2) {
        vmx = symbolic[0];  // unmasked (older kernels): the isa == VMX branch comes first
        svm = symbolic[1];
    } else if (symbolic.size() == 1) {
        // A lone table: VMX names are upper case, the kernel's SVM names lower case.
        const ValueTable* t = symbolic[0];
        bool upper = !t->entries.empty() && !has_lower(t->entries[0].second);
        (upper ? vmx : svm) = t;
    }
    if (vmx) vmx_ = flatten(*vmx);
    if (svm) svm_ = flatten(*svm);
}

void ExitReasonNames::append(uint64_t isa, uint64_t value, TextBuffer& out) const {
    if (isa == kIsaVmx) {
        if (const std::string_view* name = find(vmx_, value & 0xffff)) {
            out.append(*name);
            uint64_t high = value & ~uint64_t{0xffff};
            if (high) {
                out.push_back(' ');
                // __print_flags: names of the set bits joined by the delimiter, the rest in hex.
                bool first = true;
                if (vmx_flags_) {
                    for (const auto& [bits, fname] : vmx_flags_->entries) {
                        if (bits == 0 || (high & bits) != bits) continue;
                        if (!first) out.append(vmx_flags_->delimiter);
                        out.append(fname);
                        first = false;
                        high &= ~bits;
                    }
                }
                if (high) {
                    if (!first) out.append(vmx_flags_ ? std::string_view(vmx_flags_->delimiter) : " ");
                    out.appendf("0x%llx", static_cast<unsigned long long>(high));
                }
            }
            return;
        }
        if (const char* name = builtin_vmx_reason(static_cast<int>(value))) {
            out.append(name);
            return;
        }
    } else if (isa == kIsaSvm) {
        if (const char* name = builtin_svm_reason(static_cast<int>(value))) {
            out.append(name);
            return;
        }
        if (const std::string_view* name = find(svm_, value)) {
            out.append(*name);
            return;
        }
    } else {
        out.append("UNKNOWN-ISA");
        return;
    }
    out.appendf("UNKNOWN (%llu)", static_cast<unsigned long long>(value));
}

}  // namespace ringscope::kvm
