#include "framework/plugin/plugin_paths.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace fs = std::filesystem;

namespace ringscope::plugin {

std::string own_plugin_dir() {
    // Relative to libringscope itself, so that every program linked with it (the CLI, the example
    // ports in build/sdk/examples, an embedding program) finds the same plugins: build/lib ->
    // build/plugins in a build tree, PREFIX/lib -> PREFIX/lib/ringscope/plugins when installed.
    std::error_code ec;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&own_plugin_dir), &info) && info.dli_fname) {
        fs::path lib_dir = fs::absolute(info.dli_fname, ec).parent_path();
        for (const fs::path& candidate :
             {lib_dir / ".." / "plugins", lib_dir / ".." / RINGSCOPE_PLUGIN_INSTALL_REL}) {
            if (fs::is_directory(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
        }
    }
    return {};
}

std::vector<std::string> plugin_files(const std::string& dir, std::vector<std::string>& skipped) {
    std::vector<std::string> files;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return files;
    // Never the throwing forms: one bad entry must not stop every command (--help included).
    fs::directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        if (p.extension() != ".so") continue;
        std::error_code sec;
        const fs::file_status st = fs::status(p, sec);  // follows symlinks
        if (sec) {
            skipped.push_back("plugin " + p.string() + ": skipped, " + sec.message());
        } else if (!fs::is_regular_file(st)) {
            const char* what = fs::is_directory(st)                                 ? "a folder"
                               : fs::is_fifo(st)                                    ? "a FIFO"
                               : fs::is_socket(st)                                  ? "a socket"
                               : fs::is_character_file(st) || fs::is_block_file(st) ? "a device"
                               : fs::exists(st)                                     ? "not a regular file"
                                                : "a dangling symbolic link";
            skipped.push_back("plugin " + p.string() + ": skipped, " + what + ", not a regular file");
        } else {
            files.push_back(p.string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<std::string> plugin_search_path(const std::vector<std::string>& extra, bool own) {
    std::vector<std::string> dirs;
    if (std::string dir = own ? own_plugin_dir() : std::string(); !dir.empty()) dirs.push_back(dir);
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
