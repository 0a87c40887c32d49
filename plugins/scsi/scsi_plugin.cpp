// plugins/scsi: the scsi events whose print fmt calls scsi_trace_parse_cdb, the helper libtraceevent's
// scsi plugin defines.
#include <ringscope/plugin.hpp>

#include "scsi_printer.hpp"

namespace {

class ScsiPlugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        r.add_handler([] { return std::make_unique<ringscope::scsi::ScsiPrinter>(); });
    }
};

}  // namespace

RINGSCOPE_PLUGIN("scsi", "1.0", ScsiPlugin)
