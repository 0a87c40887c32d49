// plugins/kmem: slab events with their call site in front, as libtraceevent's kmem plugin prints them.
#include <ringscope/plugin.hpp>

#include "kmem_printer.hpp"

namespace {

class KmemPlugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::kmem::KmemPrinter>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("kmem", "1.0", KmemPlugin)
