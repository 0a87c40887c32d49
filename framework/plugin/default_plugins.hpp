// The plugins an embedding program gets without asking (as libtracecmd loads libtraceevent's
// plugins in tracecmd_open): the default search path, loaded once per process.
#pragma once

#include "framework/plugin/plugin_host.hpp"

namespace ringscope::plugin {

// Thread-safe; load problems go to stderr once, one line each.
const PluginHost& default_plugin_host();

}  // namespace ringscope::plugin
