#include "framework/plugin/default_plugins.hpp"

#include <cstdio>

#include "framework/plugin/plugin_paths.hpp"

namespace ringscope::plugin {

const PluginHost& default_plugin_host() {
    static const PluginHost* host = [] {
        auto* h = new PluginHost();  // never destroyed: plugin code may run until exit
        h->load_dirs(plugin_search_path({}));
        for (const auto& d : h->diagnostics()) std::fprintf(stderr, "ringscope: %s\n", d.c_str());
        return h;
    }();
    return *host;
}

}  // namespace ringscope::plugin
