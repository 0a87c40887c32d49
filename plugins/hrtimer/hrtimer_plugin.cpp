// plugins/hrtimer: hrtimer_start and hrtimer_expire_entry as libtraceevent's hrtimer plugin prints them.
#include <ringscope/plugin.hpp>

#include "hrtimer_printer.hpp"

namespace {

class HrtimerPlugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::hrtimer::HrtimerPrinter>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("hrtimer", "1.0", HrtimerPlugin)
