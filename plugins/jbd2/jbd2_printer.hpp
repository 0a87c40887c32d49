// libtraceevent 1.7.1's jbd2 plugin defines two print fmt helpers: jiffies_to_msecs(x), which gives
// x unchanged (the trace does not say HZ), and jbd2_dev_to_name(dev), which prints "MAJOR:MINOR".
// Every jbd2 event whose print fmt calls one of them is printed here with those helpers; the others
// keep the default print.
#pragma once

#include <memory>
#include <unordered_map>

#include <ringscope/handler.hpp>

#include "print_fmt_renderer.hpp"

namespace ringscope::jbd2 {

class Jbd2Printer final : public EventHandler {
  public:
    Jbd2Printer();
    std::string_view name() const override { return "jbd2-print"; }
    std::vector<EventMatch> subscriptions() const override { return {{"jbd2", ""}}; }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

  private:
    std::vector<printfmt::PrintFunction> functions_;
    // Null for an event this plugin leaves alone.
    std::unordered_map<const EventType*, std::unique_ptr<printfmt::PrintFmtRenderer>> renderers_;
};

}  // namespace ringscope::jbd2
