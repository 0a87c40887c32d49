// libtraceevent 1.7.1's cfg80211 plugin defines the print fmt helper __le16_to_cpup(p): the
// little-endian 16-bit number at p. The kernel passes it the frame bytes of a record
// (__le16_to_cpup((__le16 *)__get_dynamic_array(frame)): the frame control field), e.g. in
// cfg80211_rx_mlme_mgmt "netdev:%s(%d), ftype:0x%.2x". Every cfg80211 event whose print fmt calls
// it is printed here; the others keep the default print. Bytes past the end of the record read as
// zero (libtraceevent would read whatever memory follows).
#pragma once

#include <memory>
#include <unordered_map>

#include <ringscope/handler.hpp>

#include "print_fmt_renderer.hpp"

namespace ringscope::cfg80211 {

class Cfg80211Printer final : public EventHandler {
  public:
    Cfg80211Printer();
    std::string_view name() const override { return "cfg80211-print"; }
    std::vector<EventMatch> subscriptions() const override { return {{"cfg80211", ""}}; }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

  private:
    std::vector<printfmt::PrintFunction> functions_;
    std::unordered_map<const EventType*, std::unique_ptr<printfmt::PrintFmtRenderer>> renderers_;
};

}  // namespace ringscope::cfg80211
