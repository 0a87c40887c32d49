// Where plugins are looked for: the build's or installation's own plugin folder (found relative
// to libringscope), RINGSCOPE_PLUGIN_PATH, and folders the user names.
#pragma once

#include <string>
#include <vector>

namespace ringscope::plugin {

// The plugin folder that belongs to this libringscope: <build>/plugins in a build tree,
// PREFIX/lib/ringscope/plugins in an installed tree; empty if neither exists.
std::string own_plugin_dir();

// Folders in search order: own dir, then RINGSCOPE_PLUGIN_PATH (colon-separated), then `extra`.
// `own`: the build's or installation's own folder first (report -L leaves it out: "local" plugins only).
std::vector<std::string> plugin_search_path(const std::vector<std::string>& extra, bool own = true);

}  // namespace ringscope::plugin
