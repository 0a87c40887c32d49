// plugins/tlb: tlb_flush as libtraceevent's tlb plugin prints it.
#include <ringscope/plugin.hpp>

#include "tlb_printer.hpp"

namespace {

class TlbPlugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::tlb::TlbPrinter>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("tlb", "1.0", TlbPlugin)
