// libtraceevent 1.7.1's tlb plugin: tlb_flush prints "pages=%ld reason=NAME (%lld)".
// The reason names come from the event's own __print_symbolic table of `reason` (the kernel's, current:
// "local MM shootdown", "remote IPI send", ...); the plugin's four-entry built-in table ("local mm
// shootdown", nothing for later reasons) only when the format has none.
#pragma once

#include <unordered_map>

#include <ringscope/handler.hpp>

namespace ringscope::tlb {

class TlbPrinter final : public EventHandler {
  public:
    std::string_view name() const override { return "tlb-print"; }
    std::vector<EventMatch> subscriptions() const override { return {{"tlb", "tlb_flush"}}; }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

  private:
    struct Fields {
        FieldHandle pages, reason;
        const ValueTable* reasons = nullptr;  // from the format, may be null
    };
    const Fields& fields(const EventType& t);

    std::unordered_map<const EventType*, Fields> fields_;
};

}  // namespace ringscope::tlb
