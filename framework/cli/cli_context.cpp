#include "framework/cli/cli_context.hpp"

#include "framework/plugin/plugin_paths.hpp"

namespace ringscope::cli {

plugin::PluginHost& CliContext::plugins() {
    if (!host_) {
        host_ = std::make_unique<plugin::PluginHost>();
        if (!no_plugins) {
            host_->load_dirs(plugin::plugin_search_path(plugin_dirs, !local_plugins_only));
            for (const auto& d : host_->diagnostics())
                std::fprintf(stderr, "%s: %s\n", program.c_str(), d.c_str());
        }
    }
    return *host_;
}

void CliContext::error(const std::string& message) const {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), message.c_str());
}

}  // namespace ringscope::cli
