// libtraceevent 1.7.1's scsi plugin defines the print fmt helper scsi_trace_parse_cdb(p, cdb, len)
// (see cdb_text.hpp). Every scsi event whose print fmt calls it (scsi_dispatch_cmd_start/_error/
// _done/_timeout: "... cmnd=(%s %s raw=%s)") is printed here with the event's own
// __print_symbolic tables; the others keep the default print.
#pragma once

#include <memory>
#include <unordered_map>

#include <ringscope/handler.hpp>

#include "print_fmt_renderer.hpp"

namespace ringscope::scsi {

class ScsiPrinter final : public EventHandler {
  public:
    ScsiPrinter();
    std::string_view name() const override { return "scsi-print"; }
    std::vector<EventMatch> subscriptions() const override { return {{"scsi", ""}}; }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

  private:
    std::vector<printfmt::PrintFunction> functions_;
    std::unordered_map<const EventType*, std::unique_ptr<printfmt::PrintFmtRenderer>> renderers_;
};

}  // namespace ringscope::scsi
