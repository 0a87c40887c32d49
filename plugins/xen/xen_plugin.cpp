// plugins/xen: the xen events whose print fmt calls xen_hypercall_name, the helper libtraceevent's
// xen plugin defines.
#include <ringscope/plugin.hpp>

#include "xen_printer.hpp"

namespace {

class XenPlugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::xen::XenPrinter>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("xen", "1.0", XenPlugin)
