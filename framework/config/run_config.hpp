// A `ringscope run` file: inputs, plugins, symbols, filters, analyses with parameters, outputs.
// Loading collects every problem at once, each with file:line:column (1-based); `--set` overrides
// are applied to the YAML tree before validation and are named "--set N" in errors.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <ringscope/analysis.hpp>

#include "framework/config/analysis_catalog.hpp"

namespace ringscope::config {

struct SourcePos {
    std::string file;
    int line = 0;
    int column = 0;
};

struct Diagnostic {
    SourcePos pos;
    std::string message;
    std::string to_string() const;  // "file:line:column: message"
};

// One option of the plugin decoder that reads an input (`options: {ipt: {elf: prog:0x400000}}`):
// what `report -O PLUGIN:NAME=VALUE` sets for that input.
struct PluginOptionSpec {
    std::string plugin, name, value;
    SourcePos pos;       // of the value
    SourcePos name_pos;  // of the key
};

struct InputSpec {
    std::string path;  // resolved against the YAML file's folder
    std::string name;  // "host", a guest's name, or the file name
    SourcePos pos;
    std::vector<PluginOptionSpec> options;  // for the plugin decoder that reads it
};

struct SymbolSpec {
    std::string domain;  // "kernel" or a guest's name
    std::string path;
    SourcePos pos;
};

struct FilterSpec {
    std::string text;
    SourcePos pos;
};

struct RawParam {
    std::string name, value;
    SourcePos pos;       // of the value
    SourcePos name_pos;  // of the key
};

struct AnalysisRun {
    std::string name;
    std::vector<RawParam> raw;  // as written
    AnalysisParams params;      // filled by resolve_analyses()
    SourcePos pos;
};

struct OutputSpec {
    // Relative to the working directory (and outputs.dir); empty = not written.
    std::string text, json, csv, sqlite, perfetto, html;
    std::string perfetto_trace;            // Perfetto's protobuf trace (framework/perfetto)
    bool perfetto_compact_sched = false;   // its sched_switch/waking as CompactSched
    std::map<std::string, SourcePos> pos;  // of each one's value, by key ("json")
};

struct RunConfig {
    std::string path;
    std::string title;
    std::vector<InputSpec> inputs;
    std::vector<std::string> plugin_paths;
    std::vector<std::string> plugin_load;  // empty = all
    std::vector<std::string> plugin_skip;
    SourcePos plugins_pos;
    std::map<std::string, SourcePos> plugin_name_pos;  // where each load/skip name is written
    std::vector<SymbolSpec> symbols;
    std::vector<FilterSpec> filters;
    std::vector<AnalysisRun> analyses;
    OutputSpec outputs;
    bool quiet = false;
};

// Parses `path`, applies `sets` ("key.path=value"), checks keys, types and that files exist.
// Analyses are kept with raw parameters; resolve_analyses() checks them against the catalog.
// `inputs_given`: the command line names the inputs (they replace the file's; none is no error).
RunConfig load_run_config(const std::string& path, const std::vector<std::string>& sets,
                          std::vector<Diagnostic>& errors, bool inputs_given = false);

// Checks analysis names and parameters against what the loaded plugins declare and fills defaults.
void resolve_analyses(RunConfig& config, const AnalysisCatalog& catalog, std::vector<Diagnostic>& errors);

}  // namespace ringscope::config
