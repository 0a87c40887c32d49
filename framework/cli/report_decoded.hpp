// `ringscope report` on inputs that plugin decoders read (not trace.dat): each decoder's events are
// printed in report's line layout, with plugin print overrides and the events' own print fmts.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/report_compat.hpp"

namespace ringscope {
class Decoder;
}

namespace ringscope::cli {

// The decoder `input_format` names, or the one whose probe of `head` answers highest; null when
// none claims the input.
Decoder* choose_decoder(const plugin::PluginHost& host, std::span<const uint8_t> head,
                        std::string_view input_format);

// True when `path` is not a trace.dat file (no "\x17\x08\x44tracing" magic) and `input_format` is
// empty or names a plugin decoder; then report_decoded() handles the whole command.
bool wants_decoder(CliContext& ctx, const std::vector<std::string>& paths, std::string_view input_format);

// Prints every event of `paths` (each read by the decoder `input_format` names, or by the one whose
// probe answers highest), merged in time order. Returns 0, or 1 after a one-line error.
// `format` is "text" (report's lines), "json" (JSON Lines) or "csv". `jobs` (report -j; 0, its
// default, means the cores) threads format the lines, with the same output as one. `compat`: the
// line of that trace-cmd release (3.4: the flags column; a decoder's events have no flags: dots).
// `print_options` (-O) are set before the decoders open the inputs: a decoder may read its own.
// `filters` (-F, negated after -v) keep the events they accept, as for trace.dat inputs.
int report_decoded(CliContext& ctx, const std::vector<std::string>& paths, std::string_view input_format,
                   std::string_view format = "text", int jobs = 1, Compat compat = Compat::v3_4,
                   const std::vector<std::string>& print_options = {},
                   const std::vector<std::pair<std::string, bool>>& filters = {});

}  // namespace ringscope::cli
