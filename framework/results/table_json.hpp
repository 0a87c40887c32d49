// Result tables as JSON: {"TABLE": [{"COLUMN": value, ...}, ...], ...}, what `--format json` of an
// analysis prints and what `ringscope run` keeps per analysis. Non-finite numbers become null.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include <ringscope/result.hpp>

namespace ringscope::results {

nlohmann::ordered_json tables_json(const std::vector<ResultTable>& tables);

}  // namespace ringscope::results
