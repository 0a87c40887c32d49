// plugins/sched: scheduler events. Print overrides as libtraceevent's sched_switch plugin.
#include <ringscope/plugin.hpp>

#include "sched_printer.hpp"

namespace {

class SchedPlugin final : public ringscope::Plugin {
public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::sched::SchedPrinter>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("sched", "0.1.0", SchedPlugin)
