// plugins/futex: syscalls/sys_enter_futex decoded as libtraceevent's futex plugin prints it.
#include <ringscope/plugin.hpp>

#include "futex_printer.hpp"

namespace {

class FutexPlugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::futex::FutexPrinter>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("futex", "1.0", FutexPlugin)
