// Where plugins are looked for: the build's or installation's own plugin folder (found relative
// to libringscope), RINGSCOPE_PLUGIN_PATH, and folders the user names.
#pragma once

#include <string>
#include <vector>

namespace ringscope::plugin {

// The plugin folder that belongs to this libringscope: <build>/plugins in a build tree,
// PREFIX/lib/ringscope/plugins in an installed tree; empty if neither exists.
std::string own_plugin_dir();

// The *.so files of one folder, in name order, that are regular files (a symlink to one counts).
// Anything else named *.so (a folder, a FIFO that would hang dlopen, a symlink loop, a dangling
// link) is skipped with one line in `skipped` ("plugin PATH: ..."). A folder that does not exist
// or cannot be read gives nothing.
std::vector<std::string> plugin_files(const std::string& dir, std::vector<std::string>& skipped);

// Folders in search order: own dir, then RINGSCOPE_PLUGIN_PATH (colon-separated), then `extra`.
// `own`: the build's or installation's own folder first (report -L leaves it out: "local" plugins only).
std::vector<std::string> plugin_search_path(const std::vector<std::string>& extra, bool own = true);

}  // namespace ringscope::plugin
