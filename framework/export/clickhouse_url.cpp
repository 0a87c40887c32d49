#include "framework/export/clickhouse_url.hpp"

#include <charconv>

namespace ringscope::exporter {
namespace {

bool is_identifier(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    return true;
}

}  // namespace

Expected<ClickHouseUrl> ClickHouseUrl::parse(std::string_view text) {
    auto bad = [&](const std::string& why) {
        return Error(Errc::invalid_argument,
                     "'" + std::string(text) + "': " + why + " (expected clickhouse://HOST[:PORT][/DB])");
    };
    constexpr std::string_view scheme = "clickhouse://";
    if (text.substr(0, scheme.size()) != scheme) return bad("not a clickhouse:// URL");
    std::string_view rest = text.substr(scheme.size());
    std::string_view authority = rest.substr(0, rest.find('/'));
    std::string_view path = authority.size() < rest.size() ? rest.substr(authority.size() + 1) : "";

    ClickHouseUrl url;
    std::string_view port_text;
    if (!authority.empty() && authority.front() == '[') {
        size_t close = authority.find(']');
        if (close == std::string_view::npos) return bad("unclosed '[' in the host");
        url.host = std::string(authority.substr(1, close - 1));
        std::string_view after = authority.substr(close + 1);
        if (!after.empty() && after.front() != ':') return bad("unexpected text after ']'");
        if (!after.empty()) port_text = after.substr(1);
    } else {
        size_t colon = authority.find(':');
        url.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    }
    if (url.host.empty()) return bad("no host");
    if (authority.find('@') != std::string_view::npos) return bad("credentials go in --user/--password-file");
    if (!port_text.empty() || authority.back() == ':') {
        unsigned port = 0;
        auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
        if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 || port > 65535)
            return bad("port '" + std::string(port_text) + "' is not a number from 1 to 65535");
        url.port = static_cast<uint16_t>(port);
    }
    if (!path.empty() && path.back() == '/') path.remove_suffix(1);
    if (!path.empty()) {
        if (!is_identifier(path)) return bad("database '" + std::string(path) + "' is not a plain name");
        url.database = std::string(path);
    }
    return url;
}

std::string ClickHouseUrl::http_base() const {
    const bool v6 = host.find(':') != std::string::npos;
    return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/";
}

}  // namespace ringscope::exporter
