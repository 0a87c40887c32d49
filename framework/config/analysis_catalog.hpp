// The analyses a run may name, with their declared parameters. Two kinds:
//  - specs plugins register (sdk/include/ringscope/analysis.hpp: sched.*, kvm.exits, third-party
//    ones): event handlers, all fed from the run's one pass over its trace files (AnalysisPass);
//  - analyses of inputs that are not trace.dat files (ipt.summary reads Intel PT streams): run
//    through the plugin's command with `--format json`, their own pass over their own input.
//    Listed only when the plugin's command is loaded and offers them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <ringscope/analysis.hpp>
#include <ringscope/error.hpp>
#include <ringscope/plugin.hpp>

#include "framework/plugin/plugin_host.hpp"

namespace ringscope::config {

struct CatalogEntry {
    std::string plugin;
    AnalysisSpec spec;                                         // spec.create empty for command-backed entries
    std::string command;                                       // plugin command name
    std::vector<std::string> command_args;                     // e.g. {"latency"}
    std::vector<std::pair<std::string, std::string>> options;  // parameter -> command option
    // The command takes run's selection options (-F, --cpu, --pid, --comm, -e, --from/--to) after
    // its own; false for one that reads no events (ipt.summary: Intel PT packets).
    bool takes_selection = true;
};

// What one analysis gives: JSON of its tables (or the command's own JSON document).
struct AnalysisResult {
    std::string name;
    nlohmann::ordered_json json;
};

class AnalysisCatalog {
  public:
    void add(CatalogEntry entry);
    // The analyses plugins registered with add_analysis; add them before the command-backed ones so
    // a plugin's own spec wins over a built-in declaration of the same name.
    void add_registered(const plugin::PluginHost& host);
    // Declares the command-backed analyses whose commands `host` has loaded and offers.
    void add_command_backed(const plugin::PluginHost& host);

    const CatalogEntry* find(std::string_view name) const;
    const std::vector<CatalogEntry>& entries() const noexcept { return entries_; }

  private:
    std::vector<CatalogEntry> entries_;
};

// Runs a command-backed analysis (entry.command set) over `files`.
// `selection` (the run's selection options as words) goes to commands that take it.
Expected<AnalysisResult> run_command_analysis(const CatalogEntry& entry, const AnalysisParams& params,
                                              const std::vector<std::string>& selection,
                                              const std::vector<std::string>& files,
                                              const plugin::PluginHost& host, ResolverService& resolvers);

}  // namespace ringscope::config
