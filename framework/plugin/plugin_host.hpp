// Loads plugins with Boost.DLL and holds what they register. A broken plugin never takes the run
// down: each failure becomes one diagnostic line naming the file and the reason, and the rest load.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include <ringscope/plugin.hpp>

namespace ringscope::plugin {

class StagingRegistry;

struct LoadedPlugin {
    std::string name;
    std::string version;
    std::string path;
    std::vector<std::string> decoders;  // format names
    std::vector<std::string> handlers;  // handler names
    std::vector<std::vector<EventMatch>> handler_events;
    std::vector<std::string> resolvers;  // "domain: description"
    std::vector<std::string> commands;
    std::vector<std::string> report_options;  // "-w", "--profile"
    std::vector<std::string> print_options;   // "ftrace:parent"
    std::vector<std::string> analyses;
    std::vector<std::string> annotators;  // timeline annotators' names
    std::vector<std::vector<EventMatch>> annotator_events;
};

struct RegisteredHandler {
    std::string plugin;
    HandlerFactory factory;
};

struct RegisteredResolver {
    std::string plugin;
    std::string domain;
    std::shared_ptr<const SymbolResolver> resolver;
};

struct RegisteredCommand {
    std::string plugin;
    Command command;
};

struct RegisteredReportOption {
    std::string plugin;
    ReportOption option;
};

// How a report option is written on the command line: "-w", "--profile", "-w/--wakeup".
std::string report_option_spelling(const ReportOption& option);

struct RegisteredPrintOption {
    std::string plugin;
    PrintOption option;
    std::shared_ptr<PrintOptionValue> value;  // what the plugin's printers read
};

struct RegisteredAnalysis {
    std::string plugin;
    AnalysisSpec spec;
};

struct RegisteredAnnotator {
    std::string plugin;
    TimelineAnnotatorFactory factory;
};

struct RegisteredDecoder {
    std::string plugin;
    std::shared_ptr<Decoder> decoder;
};

class PluginHost {
  public:
    PluginHost() = default;
    PluginHost(const PluginHost&) = delete;
    PluginHost& operator=(const PluginHost&) = delete;
    ~PluginHost();

    // Loads every *.so of each folder (in name order); folders that do not exist are skipped.
    void load_dirs(const std::vector<std::string>& dirs);
    // Loads one file; false (and a diagnostic) when it is not a usable plugin. It is loaded in a
    // child process first (plugin_probe.hpp): one that crashes or hangs there is skipped.
    bool load_file(const std::string& path);

    // One line per problem met while loading ("plugin FILE: reason").
    const std::vector<std::string>& diagnostics() const noexcept { return diagnostics_; }

    const std::vector<LoadedPlugin>& plugins() const noexcept { return plugins_; }
    const std::vector<RegisteredHandler>& handlers() const noexcept { return handlers_; }
    const std::vector<RegisteredResolver>& resolvers() const noexcept { return resolvers_; }
    const std::vector<RegisteredCommand>& commands() const noexcept { return commands_; }
    const std::vector<RegisteredDecoder>& decoders() const noexcept { return decoders_; }
    const std::vector<RegisteredReportOption>& report_options() const noexcept { return report_options_; }
    const std::vector<RegisteredAnalysis>& analyses() const noexcept { return analyses_; }
    const std::vector<RegisteredPrintOption>& print_options() const noexcept { return print_options_; }
    const std::vector<RegisteredAnnotator>& annotators() const noexcept { return annotators_; }
    const Command* find_command(std::string_view name) const;

    // Sets every print option from report's -O arguments ("[PLUGIN:]NAME[=VALUE]", in command-line
    // order) the way trace-cmd 3.1.6 and libtraceevent 1.7.1 do; options no plugin has are ignored.
    void apply_print_options(const std::vector<std::string>& args);

  private:
    bool load_in_process(const std::string& path);
    // One line naming what a new plugin's registrations clash with; empty when nothing does.
    std::string conflict_with_loaded(const StagingRegistry& staged, const std::string& name) const;
    // Moves a checked plugin's registrations into the host and lists them in INFO.
    void adopt(StagingRegistry& staged, LoadedPlugin& info);

    // Libraries are destroyed last: everything below holds code or data from them.
    std::vector<boost::dll::shared_library> libraries_;
    std::vector<std::unique_ptr<Plugin>> instances_;
    std::vector<LoadedPlugin> plugins_;
    std::vector<RegisteredHandler> handlers_;
    std::vector<RegisteredResolver> resolvers_;
    std::vector<RegisteredCommand> commands_;
    std::vector<RegisteredDecoder> decoders_;
    std::vector<RegisteredReportOption> report_options_;
    std::vector<RegisteredAnalysis> analyses_;
    std::vector<RegisteredPrintOption> print_options_;
    std::vector<RegisteredAnnotator> annotators_;
    std::vector<std::string> diagnostics_;
};

}  // namespace ringscope::plugin
