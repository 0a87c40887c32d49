// `ringscope run`'s result outputs: the analyses' tables as text, CSV and JSON, and the html page
// (the viewer's offline page with the results in a tab), each written complete under a temporary
// name; the run renames them all into place only once every one is complete.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <ringscope/result.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/config/run_config.hpp"
#include "framework/io/atomic_output.hpp"
#include "framework/sinks/html_report.hpp"
#include "framework/sinks/progress_bar.hpp"

namespace ringscope::cli {

// What one analysis gave: its tables (text, CSV) and their JSON.
struct AnalysisOutcome {
    std::string name;
    nlohmann::ordered_json doc;
    std::vector<ResultTable> tables;
};

// A command-backed analysis's JSON -> tables for the text and CSV outputs: arrays of objects become
// tables, objects one-row tables, named "<analysis>.<key>" unless the key is already a full name.
std::vector<ResultTable> result_tables(const std::string& name, const nlohmann::ordered_json& r);

// The outputs a run file names, by key.
std::vector<std::pair<const char*, const std::string*>> output_files(const config::OutputSpec& o);

// What the json output says the run read.
struct ReadingStats {
    uint64_t events = 0, cpu_data_bytes = 0, cpu_data_pages = 0, pages_loaded = 0;
};

// Writes text, csv, json and html (those C names) into PENDING. RUN_PATH is the YAML file;
// TIMELINE_FILES the inputs the html page's timeline shows (the trace.dat ones).
Status write_result_outputs(CliContext& ctx, const config::RunConfig& c, const std::string& run_path,
                            const std::vector<AnalysisOutcome>& results, const sinks::RunSummary& summary,
                            const ReadingStats& reading, const std::vector<std::string>& timeline_files,
                            sinks::ProgressBar& progress,
                            std::vector<std::unique_ptr<io::AtomicOutput>>& pending);

}  // namespace ringscope::cli
