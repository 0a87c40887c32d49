#include "framework/cli/cli_context.hpp"

#include <ringscope/text_escape.hpp>

#include "framework/plugin/plugin_paths.hpp"

namespace ringscope::cli {

plugin::PluginHost& CliContext::plugins() {
    if (!host_) {
        host_ = std::make_unique<plugin::PluginHost>();
        if (!no_plugins) {
            host_->load_dirs(plugin::plugin_search_path(plugin_dirs, !local_plugins_only));
            for (const auto& d : host_->diagnostics()) error(d);
        }
    }
    return *host_;
}

void CliContext::error(const std::string& message) const {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), escaped(message, TextTarget::terminal).c_str());
}

}  // namespace ringscope::cli
