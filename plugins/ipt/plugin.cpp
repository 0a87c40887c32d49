// The ipt plugin: the `ipt` command and the "ipt" input format.
#include <memory>

#include <ringscope/plugin.hpp>

#include "calls_analysis.hpp"
#include "ipt/command.hpp"
#include "ipt/event_stream.hpp"

namespace {

class IptPlugin : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& registry) override {
        // -O ipt:NAME=VALUE: the code and names that turn a .pt input's events into its flow's.
        auto option = [&](const char* name, const char* doc) {
            return &registry.add_print_option(ringscope::PrintOption{"ipt", name, doc, false, true, ""});
        };
        const ringscope::PrintOptionValue* elf =
            option("elf", "ELF files of the traced code: FILE[:BASE],...");
        const ringscope::PrintOptionValue* raw = option("raw", "raw code: FILE[:OFF[-END]]:ADDR,...");
        const ringscope::PrintOptionValue* kallsyms =
            option("kallsyms", "function names: a file in /proc/kallsyms' format or a trace.dat");
        const ringscope::PrintOptionValue* flow =
            option("flow", "calls (default with code), branches, or packets (the default without)");
        registry.add_decoder(std::make_shared<ringscope::ipt::IptDecoder>([=] {
            return ringscope::ipt::FlowEventOptions{elf->value, raw->value, kallsyms->value, flow->value};
        }));
        registry.add_analysis(ringscope::ipt::calls_analysis_spec());
        registry.add_command(
            ringscope::Command{"ipt", ringscope::ipt::kCommandSummary,
                               [](const std::vector<std::string>& args, ringscope::CommandEnv& env) {
                                   return ringscope::ipt::run_command(args, env.out(), env.err());
                               }});
    }
};

}  // namespace

RINGSCOPE_PLUGIN("ipt", "1.0", IptPlugin)
