// The ipt plugin: the `ipt` command and the "ipt" input format.
#include <memory>

#include <ringscope/plugin.hpp>

#include "ipt/command.hpp"
#include "ipt/event_stream.hpp"

namespace {

class IptPlugin : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& registry) override {
        registry.add_decoder(std::make_shared<ringscope::ipt::IptDecoder>());
        registry.add_command(
            ringscope::Command{"ipt", ringscope::ipt::kCommandSummary,
                               [](const std::vector<std::string>& args, ringscope::CommandEnv& env) {
                                   return ringscope::ipt::run_command(args, env.out(), env.err());
                               }});
    }
};

}  // namespace

RINGSCOPE_PLUGIN("ipt", "1.0", IptPlugin)
