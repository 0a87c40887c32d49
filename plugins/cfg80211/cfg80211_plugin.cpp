// plugins/cfg80211: the cfg80211 events whose print fmt calls __le16_to_cpup, the helper
// libtraceevent's cfg80211 plugin defines.
#include <ringscope/plugin.hpp>

#include "cfg80211_printer.hpp"

namespace {

class Cfg80211Plugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::cfg80211::Cfg80211Printer>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("cfg80211", "1.0", Cfg80211Plugin)
