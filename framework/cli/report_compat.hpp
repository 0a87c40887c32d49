// `report --compat VERSION`: which trace-cmd release `report` prints as. trace-cmd 3.3 changed the
// event line (a flags column after "[CPU]"; -R prints the flags in hex and symbol fields with their
// address); 3.4 prints the same lines. RINGSCOPE_COMPAT sets the default, else the current release.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "framework/engine/trace_file.hpp"
#include "framework/output/report_line_writer.hpp"

namespace ringscope::cli {

enum class Compat { v3_1, v3_4 };

// "3.1" or "3.4"; nullopt for anything else.
std::optional<Compat> parse_compat(std::string_view text);
// RINGSCOPE_COMPAT when set, else 3.4; an error message (for a usage error) when it is set to
// something else.
std::optional<Compat> default_compat(std::string& error);
// What the version changes in the line style and in how the files print their fields.
void apply_compat(Compat compat, output::ReportStyle& style);
void apply_compat(Compat compat, engine::OpenOptions& options);
// The -O print options with "compat=VERSION" first (every plugin that declares a `compat` print
// option learns the release; an explicit -O compat=... still wins).
std::vector<std::string> with_compat_option(Compat compat, const std::vector<std::string>& print_options);

}  // namespace ringscope::cli
