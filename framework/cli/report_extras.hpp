// trace-cmd report options whose work is small and self-contained: -T (the filters, compiled),
// --verbose[=LEVEL] / -V, and the -O list of `report --help`.
#pragma once

#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <ringscope/event_type.hpp>

#include "framework/plugin/plugin_host.hpp"

namespace ringscope::cli {

// -T: per filter (in command-line order, the --pid one after the -F ones), each event type it names
// as " 'NAME: EXPRESSION'", as trace-cmd 3.1.6 prints them; nullopt and `error` when one does not parse.
std::optional<std::string> filter_test_text(const std::vector<std::pair<std::string, bool>>& filters,
                                            const std::vector<std::string>& pids,
                                            std::span<const EventType* const> types, std::string& error);

// --verbose[=LEVEL]: libtracefs's levels "none" (0), "crit", "err", "warn", "info", "debug", "all"
// (6) or their numbers; no LEVEL is "info" (4). nullopt for another word.
std::optional<int> parse_verbose_level(std::string_view level);
inline constexpr int kVerboseInfo = 4;

// What trace-cmd prints on stdout at level info or more before the events: the file version and
// each plugin registered (ringscope's plugins, from their files).
std::string verbose_preamble(int file_version, const plugin::PluginHost* plugins);

// The plugins' print options for `report --help`: "  -O PLUGIN:NAME[=VALUE]   doc (default)".
void print_dash_o_help(std::FILE* out, const plugin::PluginHost& plugins);

}  // namespace ringscope::cli
