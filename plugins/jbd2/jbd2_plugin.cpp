// plugins/jbd2: the jbd2 events whose print fmt calls jiffies_to_msecs / jbd2_dev_to_name, the
// helpers libtraceevent's jbd2 plugin defines.
#include <ringscope/plugin.hpp>

#include "jbd2_printer.hpp"

namespace {

class Jbd2Plugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::jbd2::Jbd2Printer>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("jbd2", "1.0", Jbd2Plugin)
