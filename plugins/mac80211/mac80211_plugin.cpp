// plugins/mac80211: drv_bss_info_changed as libtraceevent's mac80211 plugin prints it.
#include <ringscope/plugin.hpp>

#include "mac80211_printer.hpp"

namespace {

class Mac80211Plugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::mac80211::Mac80211Printer>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("mac80211", "1.0", Mac80211Plugin)
