// An event line as a JSON string for the page's embedded data: what nlohmann::json's dump (UTF-8
// kept, invalid bytes as U+FFFD) writes, with "<" as \u003c so the text never closes its
// <script>. Report's lines are nearly all ASCII: those are escaped in one scan, without building a
// json value; a line with other bytes goes through nlohmann for its UTF-8 checks.
#pragma once

#include <string>
#include <string_view>

namespace ringscope::view {

// Appends LINE to OUT as a quoted, script-safe JSON string.
void append_json_line(std::string& out, std::string_view line);

// Appends TEXT (JSON) to OUT with "<" written \u003c: the same JSON, safe inside <script>.
void append_script_safe(std::string& out, std::string_view text);

}  // namespace ringscope::view
