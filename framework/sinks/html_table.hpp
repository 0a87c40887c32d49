// Result tables in the HTML report, for people: a column "*_ns" is a duration in the unit that
// suits each value, "*_ts" (or "*start_ns") a time as `report` prints it, other numbers in fixed
// notation (never 1.0245e+06); rows sorted worst first (the largest duration, else count); every
// column sortable by a click (kSortScript, the report's one inline script).
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace ringscope::sinks {

// An array of objects as a sortable HTML table, the first `limit` rows after sorting.
std::string table_html(const nlohmann::ordered_json& rows, size_t limit = 50);

// One cell's text, as above.
std::string readable_cell(const std::string& column, const nlohmann::ordered_json& v);

// Sorts a table.sortable by the clicked column: numbers by their exact value (data-v), largest
// first on the first click, reversed on the next.
extern const char* const kSortScript;

}  // namespace ringscope::sinks
