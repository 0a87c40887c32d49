// Whole-file reads and writes for tracefs and procfs files (their st_size is 0: read to EOF).
#pragma once

#include <string>
#include <string_view>

#include <ringscope/error.hpp>

namespace ringscope::tracefs {

Expected<std::string> read_text_file(const std::string& path);
// O_TRUNC (or O_APPEND), one write of `text` (an empty text only truncates: "trace" clears so).
Status write_text_file(const std::string& path, std::string_view text, bool append);

}  // namespace ringscope::tracefs
