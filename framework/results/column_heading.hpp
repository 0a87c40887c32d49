// How a result column is headed where its values carry their unit (text tables, HTML).
#pragma once

#include <string>
#include <string_view>

namespace ringscope {

// "max_ns" is "max" (its values read "1.250 us"), "window_start_ns" is "window_start" (a time in
// seconds); other columns as they are named.
std::string column_heading(std::string_view column);

}  // namespace ringscope
