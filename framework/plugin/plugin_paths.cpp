#include "framework/plugin/plugin_paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace fs = std::filesystem;

namespace ringscope::plugin {

std::string own_plugin_dir() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    fs::path dir = exe.parent_path();
    for (const fs::path& candidate : {dir / "plugins", dir / ".." / RINGSCOPE_PLUGIN_INSTALL_REL}) {
        if (fs::is_directory(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
    }
    return {};
}

std::vector<std::string> plugin_search_path(const std::vector<std::string>& extra) {
    std::vector<std::string> dirs;
    if (std::string own = own_plugin_dir(); !own.empty()) dirs.push_back(own);
    if (const char* env = std::getenv("RINGSCOPE_PLUGIN_PATH")) {
        std::string_view rest = env;
        while (!rest.empty()) {
            size_t colon = rest.find(':');
            std::string_view part = rest.substr(0, colon);
            if (!part.empty()) dirs.emplace_back(part);
            if (colon == std::string_view::npos) break;
            rest.remove_prefix(colon + 1);
        }
    }
    dirs.insert(dirs.end(), extra.begin(), extra.end());
    return dirs;
}

}  // namespace ringscope::plugin
