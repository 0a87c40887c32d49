// Parameter text -> canonical value, by declared type (shared by YAML validation and --set).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <ringscope/analysis.hpp>

namespace ringscope::config {

const char* param_type_name(ParamType type) noexcept;
// Canonical text (integers decimal, durations ns, booleans true/false), or nullopt when `text` is
// not a value of `type`.
std::optional<std::string> canonical_param(ParamType type, std::string_view text);

}  // namespace ringscope::config
