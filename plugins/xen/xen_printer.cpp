#include "xen_printer.hpp"

#include <array>

namespace ringscope::xen {
namespace {

// Xen's __HYPERVISOR_* numbers (xen/include/public/xen.h); gaps have no name.
constexpr std::array<std::string_view, 56> kHypercalls = [] {
    std::array<std::string_view, 56> t{};
    t[0] = "(set_trap_table)";
    t[1] = "(mmu_update)";
    t[2] = "(set_gdt)";
    t[3] = "(stack_switch)";
    t[4] = "(set_callbacks)";
    t[5] = "(fpu_taskswitch)";
    t[6] = "(sched_op_compat)";
    t[7] = "(dom0_op)";
    t[8] = "(set_debugreg)";
    t[9] = "(get_debugreg)";
    t[10] = "(update_descriptor)";
    t[12] = "(memory_op)";
    t[13] = "(multicall)";
    t[14] = "(update_va_mapping)";
    t[15] = "(set_timer_op)";
    t[16] = "(event_channel_op_compat)";
    t[17] = "(xen_version)";
    t[18] = "(console_io)";
    t[19] = "(physdev_op_compat)";
    t[20] = "(grant_table_op)";
    t[21] = "(vm_assist)";
    t[22] = "(update_va_mapping_otherdomain)";
    t[23] = "(iret)";
    t[24] = "(vcpu_op)";
    t[25] = "(set_segment_base)";
    t[26] = "(mmuext_op)";
    t[27] = "(acm_op)";
    t[28] = "(nmi_op)";
    t[29] = "(sched_op)";
    t[30] = "(callback_op)";
    t[31] = "(xenoprof_op)";
    t[32] = "(event_channel_op)";
    t[33] = "(physdev_op)";
    t[34] = "(hvm_op)";
    t[48] = "(arch_0)";
    t[49] = "(arch_1)";
    t[50] = "(arch_2)";
    t[51] = "(arch_3)";
    t[52] = "(arch_4)";
    t[53] = "(arch_5)";
    t[54] = "(arch_6)";
    t[55] = "(arch_7)";
    return t;
}();

uint64_t no_value(uint64_t) {
    return 0;
}

void name_text(uint64_t op, TextBuffer& out) {
    out.append(XenPrinter::hypercall_name(op));
}

}  // namespace

std::string_view XenPrinter::hypercall_name(uint64_t op) {
    // The plugin takes the argument as an unsigned int.
    const auto n = static_cast<uint32_t>(op);
    return n < kHypercalls.size() ? kHypercalls[n] : std::string_view();
}

XenPrinter::XenPrinter() : functions_{{"xen_hypercall_name", &no_value, &name_text}} {}

bool XenPrinter::print(const Event& ev, PrintContext&, TextBuffer& out) {
    auto it = renderers_.find(ev.type_ptr());
    if (it == renderers_.end()) {
        std::unique_ptr<printfmt::PrintFmtRenderer> r;
        if (ev.type().print_fmt.find("xen_hypercall_name(") != std::string::npos)
            r = printfmt::PrintFmtRenderer::compile(ev.type(), functions_);
        it = renderers_.emplace(ev.type_ptr(), std::move(r)).first;
    }
    if (!it->second) return false;  // not ours, or beyond the evaluator: the default print
    it->second->render(ev, out);
    return true;
}

}  // namespace ringscope::xen
