// The analyses a run may name, with their declared parameters. Two kinds:
//  - specs plugins register (sdk/include/ringscope/analysis.hpp): a handler, fed events here;
//  - built-in declarations of analyses that plugins so far offer only as commands (sched.*,
//    kvm.exits, ipt.summary): run through the plugin's command with `--format json`. Each is listed
//    only when its plugin's command is loaded, so the config is still validated against plugins.
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
    // Declares the command-backed analyses whose commands `host` has loaded.
    void add_command_backed(const plugin::PluginHost& host);

    const CatalogEntry* find(std::string_view name) const;
    const std::vector<CatalogEntry>& entries() const noexcept { return entries_; }

  private:
    std::vector<CatalogEntry> entries_;
};

// Runs one analysis over `files` (host first, guests after: merged in time order).
Expected<AnalysisResult> run_analysis(const CatalogEntry& entry, const AnalysisParams& params,
                                      const std::vector<std::string>& files, const plugin::PluginHost& host,
                                      ResolverService& resolvers, const std::vector<std::string>& filters);

}  // namespace ringscope::config
