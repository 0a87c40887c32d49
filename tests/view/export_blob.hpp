// The data blob of a page `ringscope view --export` (or run's html) wrote: the JSON in its
// <script id="ringscope-data">; null when the page has none or it does not parse.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ringscope::test {

inline nlohmann::json export_blob(const std::string& html) {
    const std::string open = "<script id=\"ringscope-data\" type=\"application/json\">";
    const size_t at = html.find(open);
    if (at == std::string::npos) return nullptr;
    const size_t end = html.find("</script>", at);
    if (end == std::string::npos) return nullptr;
    auto blob = nlohmann::json::parse(html.substr(at + open.size(), end - at - open.size()), nullptr, false);
    return blob.is_discarded() ? nlohmann::json(nullptr) : blob;
}

}  // namespace ringscope::test
