// libtraceevent 1.7.1's mac80211 plugin: drv_bss_info_changed on four lines,
//   "WIPHY vif:VIF(TYPE)\n" + 65 blanks + "assoc:%d aid:%d cts:%d shortpre:%d shortslot:%d dtimper:%d \n"
//   + 65 blanks + "bcnint:%d assoc_cap:%#x basic_rates:%#x enable_beacon:%d\n" + 65 blanks +
//   "ht_operation_mode:%d"
// A field the event does not have (newer kernels moved assoc/aid elsewhere) is left out, its
// separating blank stays; a missing name prints NOTFOUND:NAME.
#pragma once

#include <array>
#include <unordered_map>

#include <ringscope/handler.hpp>

namespace ringscope::mac80211 {

class Mac80211Printer final : public EventHandler {
  public:
    std::string_view name() const override { return "mac80211-print"; }
    std::vector<EventMatch> subscriptions() const override { return {{"mac80211", "drv_bss_info_changed"}}; }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

    static constexpr size_t kFlagCount = 11;

  private:
    struct Fields {
        FieldHandle wiphy, vif_name, vif_type;
        std::array<FieldHandle, kFlagCount> flags;
    };
    const Fields& fields(const EventType& t);

    std::unordered_map<const EventType*, Fields> fields_;
};

}  // namespace ringscope::mac80211
