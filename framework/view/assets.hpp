// The page's files (web/), embedded at build time by cmake/embed_assets.cmake.
#pragma once

#include <span>
#include <string_view>

namespace ringscope::view {

struct Asset {
    std::string_view name;  // path under web/ ("index.html", "js/app.js")
    std::string_view data;
};

std::span<const Asset> embedded_assets();
const Asset* find_asset(std::string_view name);

}  // namespace ringscope::view
