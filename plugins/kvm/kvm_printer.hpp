// The print overrides of libtraceevent's kvm plugin (plugin_kvm.c, 1.7.1), output for output:
// kvm_exit, kvm_entry, kvm_emulate_insn, kvm_nested_vmexit, kvm_nested_vmexit_inject, and the
// kvmmmu page events. Exit-reason names follow exit_reasons.hpp; guest functions come from the
// resolver service (guest_functions.hpp) instead of the reference's weak symbols.
#pragma once

#include <string>
#include <unordered_map>

#include <ringscope/handler.hpp>

#include "exit_reasons.hpp"
#include "guest_functions.hpp"
#include "kvm_fields.hpp"

namespace ringscope::kvm {

class KvmPrinter final : public EventHandler {
  public:
    KvmPrinter() { disasm_.reserve(15 * 3 + 1); }

    std::string_view name() const override { return "kvm"; }
    std::vector<EventMatch> subscriptions() const override;
    void begin(const TraceContext& ctx) override;
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

  private:
    enum class Kind {
        exit,
        entry,
        emulate_insn,
        nested_vmexit,
        nested_vmexit_inject,
        mmu_get_page,
        mmu_role
    };
    struct TypeInfo {
        Kind kind;
        ExitReasonNames reasons;
        NumField f[8];  // per kind, in the order the reference reads them
    };

    const TypeInfo* info(const EventType& type);
    bool print_exit_reason(const Event& ev, const TypeInfo& ti, const NumField& field, const NumField& isa,
                           TextBuffer& out);
    bool print_exit(const Event& ev, const TypeInfo& ti, TextBuffer& out);
    bool print_entry(const Event& ev, const TypeInfo& ti, TextBuffer& out);
    bool print_emulate_insn(const Event& ev, const TypeInfo& ti, TextBuffer& out);
    bool print_nested_inject(const Event& ev, const TypeInfo& ti, TextBuffer& out);
    bool print_nested_vmexit(const Event& ev, const TypeInfo& ti, TextBuffer& out);
    bool print_mmu_get_page(const Event& ev, const TypeInfo& ti, TextBuffer& out);
    bool print_mmu_role(const Event& ev, const NumField& role, const NumField& root, const NumField& unsync,
                        TextBuffer& out);

    std::unordered_map<const EventType*, TypeInfo> types_;
    GuestFunctions guest_;
    // The reference keeps its hex dump in a static buffer, which a zero-length instruction reuses.
    std::string disasm_;
};

}  // namespace ringscope::kvm
