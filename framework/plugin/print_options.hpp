// report -O: plugins' print options set the way trace-cmd 3.1.6 with libtraceevent 1.7.1 sets them.
#pragma once

#include <string>
#include <vector>

#include "framework/plugin/plugin_host.hpp"

namespace ringscope::plugin {

// Resets every option to its default, then applies ARGS ("[PLUGIN:]NAME[=VALUE]", command-line
// order). libtraceevent's rules, which users' trace-cmd habits depend on:
// - a repeated PLUGIN:NAME (or bare NAME) replaces its earlier value instead of adding a second one;
// - an option gets the value given with its plugin's name first, then the one given without a plugin
//   name, so a bare NAME is applied last;
// - no VALUE toggles a boolean (and leaves a string option alone); a boolean takes exactly "1",
//   "true", "0" or "false" (any other word, "TRUE" too, changes nothing);
// - an argument that names no registered option is ignored.
void apply_dash_o(std::vector<RegisteredPrintOption>& options, const std::vector<std::string>& args);

}  // namespace ringscope::plugin
