// Partial results: `--partial OUT.json` writes the mergeable state of an analysis over one shard of
// the inputs (the files of one run); `ringscope merge` (or the analysis command's `--merge`) combines
// partials into what one run over all the shards gives. The file:
//
//   {"ringscope_partial": 1, "analysis": "sched.latency", "command": ["sched", "latency"],
//    "params": {"top": "10"}, "inputs": ["a.dat"], "state": {...the analysis's own JSON...}}
//
// `command` is the plugin command (and its leading arguments) that merges this analysis; partials
// merge only when analysis, command and params are equal.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope {

inline constexpr int kPartialFormat = 1;

struct PartialResult {
    std::string analysis;
    std::vector<std::string> command;
    std::map<std::string, std::string> params;  // canonical text
    std::vector<std::string> inputs;
    std::string state_json;
};

// Written under a temporary name and renamed, so a failed run leaves no half-written partial.
Status write_partial(const std::string& path, const PartialResult& partial);
// Errors name the file (and the byte offset of a JSON syntax error).
Expected<PartialResult> read_partial(const std::string& path);
// All of `paths` (at least one); an error names the first file whose analysis, command or params
// differ from the first file's.
Expected<std::vector<PartialResult>> read_partials(const std::vector<std::string>& paths);

}  // namespace ringscope
