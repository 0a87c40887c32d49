// Collects one plugin's registrations so that a plugin failing half-way registers nothing: the
// host checks them against what is loaded already, then adopts them all or none.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ringscope/plugin.hpp>

namespace ringscope::plugin {

class StagingRegistry final : public PluginRegistry {
  public:
    void add_decoder(std::shared_ptr<Decoder> decoder) override {
        if (decoder) decoders.push_back(std::move(decoder));
    }
    void add_handler(HandlerFactory factory) override {
        if (factory) handlers.push_back(std::move(factory));
    }
    void add_resolver(std::string domain, std::shared_ptr<const SymbolResolver> resolver) override {
        if (resolver) resolvers.emplace_back(std::move(domain), std::move(resolver));
    }
    void add_command(Command command) override {
        if (command.run) commands.push_back(std::move(command));
    }
    void add_report_option(ReportOption option) override {
        if (option.factory && (!option.long_name.empty() || option.short_name))
            report_options.push_back(std::move(option));
    }
    void add_analysis(AnalysisSpec spec) override {
        if (spec.create && !spec.name.empty()) analyses.push_back(std::move(spec));
    }
    const PrintOptionValue& add_print_option(PrintOption option) override {
        auto value = std::make_shared<PrintOptionValue>(PrintOptionValue{option.set, option.default_value});
        print_options.emplace_back(std::move(option), value);
        return *value;
    }
    void add_timeline_annotator(TimelineAnnotatorFactory factory) override {
        if (factory) annotators.push_back(std::move(factory));
    }

    std::vector<std::shared_ptr<Decoder>> decoders;
    std::vector<HandlerFactory> handlers;
    std::vector<TimelineAnnotatorFactory> annotators;
    std::vector<std::pair<std::string, std::shared_ptr<const SymbolResolver>>> resolvers;
    std::vector<Command> commands;
    std::vector<ReportOption> report_options;
    std::vector<AnalysisSpec> analyses;
    std::vector<std::pair<PrintOption, std::shared_ptr<PrintOptionValue>>> print_options;
};

}  // namespace ringscope::plugin
