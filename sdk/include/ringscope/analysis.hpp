// An analysis a plugin offers to `ringscope run`: a handler factory plus the parameters it takes,
// declared so a YAML run is validated against them before any work starts.
//
//   r.add_analysis({"sched.latency", "wakeup-to-run latency",
//                   {{"top", ParamType::integer, "10", "worst wakeups listed"}},
//                   [](const AnalysisParams& p) {
//                       return std::make_unique<LatencyAnalysis>(p.integer("top"));
//                   }});
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/handler.hpp>

namespace ringscope {

// duration: "10ms", "250us", "1s", "5000" (ns); boolean: true/false.
enum class ParamType : uint8_t { integer, number, boolean, string, duration };

struct AnalysisParam {
    std::string name;
    ParamType type = ParamType::string;
    std::string default_value;  // in the YAML spelling; empty = required
    std::string doc;
};

// Validated values, canonical text: integers in decimal, durations in ns, booleans "true"/"false".
// Every declared parameter is present (its default when the run does not set it).
struct AnalysisParams {
    std::map<std::string, std::string, std::less<>> values;

    const std::string& string(std::string_view name) const {
        static const std::string empty;
        auto it = values.find(name);
        return it == values.end() ? empty : it->second;
    }
    int64_t integer(std::string_view name) const { return std::strtoll(string(name).c_str(), nullptr, 10); }
    uint64_t duration_ns(std::string_view name) const {
        return std::strtoull(string(name).c_str(), nullptr, 10);
    }
    double number(std::string_view name) const { return std::strtod(string(name).c_str(), nullptr); }
    bool boolean(std::string_view name) const { return string(name) == "true"; }
};

struct AnalysisSpec {
    std::string name;  // "plugin.analysis", e.g. "sched.latency"
    std::string doc;
    std::vector<AnalysisParam> params;
    // One handler per run; its end() tables are the analysis's result.
    std::function<std::unique_ptr<EventHandler>(const AnalysisParams&)> create;
};

}  // namespace ringscope
