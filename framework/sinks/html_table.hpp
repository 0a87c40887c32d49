// Result tables in the HTML report, for people: a column "*_ns" is a duration in the unit that
// suits each value, "*_ts" (or "*start_ns") a time as `report` prints it, other numbers in fixed
// notation (never 1.0245e+06), shares as percentages; rows sorted worst first (the largest duration,
// else count). Numbers keep their exact value in data-v and times in data-ts: the page's
// web/results.js sorts by a clicked column and opens the timeline at a clicked time.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace ringscope::sinks {

// An array of objects as a sortable HTML table (data-name NAME, each header's data-key its
// column), the first `limit` rows after sorting.
std::string table_html(const nlohmann::ordered_json& rows, const std::string& name, size_t limit = 50);

// One cell's text, as above.
std::string readable_cell(const std::string& column, const nlohmann::ordered_json& v);

}  // namespace ringscope::sinks
