// libtraceevent 1.7.1's xen plugin defines the print fmt helper xen_hypercall_name(op): "(NAME)" for
// the hypercalls of Xen's public interface (set_trap_table = 0 ... arch_7 = 55), "" for any other
// number. Every xen event whose print fmt calls it (xen_mc_entry: "op %u%s args [...]") is printed
// here; the others keep the default print.
#pragma once

#include <memory>
#include <unordered_map>

#include <ringscope/handler.hpp>

#include "print_fmt_renderer.hpp"

namespace ringscope::xen {

class XenPrinter final : public EventHandler {
  public:
    XenPrinter();
    std::string_view name() const override { return "xen-print"; }
    std::vector<EventMatch> subscriptions() const override { return {{"xen", ""}}; }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

    // "(name)" or "" (exposed for tests).
    static std::string_view hypercall_name(uint64_t op);

  private:
    std::vector<printfmt::PrintFunction> functions_;
    std::unordered_map<const EventType*, std::unique_ptr<printfmt::PrintFmtRenderer>> renderers_;
};

}  // namespace ringscope::xen
