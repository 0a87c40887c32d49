// A plugin is first loaded in a child process, which reports whether it initialises, so that a
// plugin that crashes, hangs or ends the process while loading is named and skipped instead of
// taking the command down. The verdict is cached by file identity (device, inode, size, mtime)
// in $RINGSCOPE_PLUGIN_CACHE, else $XDG_CACHE_HOME/ringscope/plugin-verdicts, else
// ~/.cache/ringscope/plugin-verdicts, so that start-up forks only for a new or changed file.
#pragma once

#include <functional>
#include <string>

namespace ringscope::plugin {

struct ProbeResult {
    bool load = true;  // false: skip the plugin, `why` says what happened in the child
    std::string why;
};

// `load_in_child` loads the plugin as the parent would (true when it is usable); it runs in the
// forked child only.
ProbeResult probe_plugin(const std::string& path, const std::function<bool()>& load_in_child);

}  // namespace ringscope::plugin
