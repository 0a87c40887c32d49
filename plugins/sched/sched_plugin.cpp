// plugins/sched: scheduler events. Print overrides as libtraceevent's sched_switch plugin, and the
// scheduler analyses (`ringscope sched latency|runtime|timeline`).
#include <ringscope/plugin.hpp>

#include "sched_command.hpp"
#include "sched_printer.hpp"

namespace {

class SchedPlugin final : public ringscope::Plugin {
public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::sched::SchedPrinter>(); });
        r.add_command({"sched", "scheduler analyses: latency, runtime, timeline", &ringscope::sched::run_sched_command});
    }
};

}  // namespace

RINGSCOPE_PLUGIN("sched", "0.2.0", SchedPlugin)
