// The kvm plugin: libtraceevent's kvm event printing with guest functions from the resolver
// service, the kvm exits analysis, and kvm on the viewer's timeline (vCPU threads, exits).
#include <ringscope/plugin.hpp>

#include "kvm_command.hpp"
#include "kvm_exits.hpp"
#include "kvm_printer.hpp"
#include "kvm_timeline.hpp"

namespace ringscope::kvm {

class KvmPlugin final : public Plugin {
  public:
    void register_into(PluginRegistry& registry) override {
        registry.add_handler([] { return std::make_unique<KvmPrinter>(); });
        registry.add_command(
            Command{"kvm", "kvm analyses: `kvm exits FILE...` (exit reasons, vCPUs, guest functions)",
                    &run_kvm_command});
        registry.add_analysis(exits_analysis_spec());
        registry.add_timeline_annotator([] { return std::make_unique<KvmTimeline>(); });
    }
};

}  // namespace ringscope::kvm

RINGSCOPE_PLUGIN("kvm", "1.0", ringscope::kvm::KvmPlugin)
