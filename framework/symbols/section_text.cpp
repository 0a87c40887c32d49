#include "framework/symbols/section_text.hpp"

#include <charconv>

namespace ringscope::symbols::section_text {

std::vector<Field> split_fields(std::string_view line) {
    std::vector<Field> out;
    size_t i = 0;
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (i < line.size()) {
        while (i < line.size() && space(line[i])) ++i;
        const size_t start = i;
        while (i < line.size() && !space(line[i])) ++i;
        if (i > start) out.push_back({line.substr(start, i - start), start});
    }
    return out;
}

std::optional<uint64_t> parse_hex(std::string_view s) {
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
    if (s.empty() || s.size() > 16) return std::nullopt;
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<int64_t> parse_signed(std::string_view s) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

Error error_at(int line, size_t column, std::string message) {
    return Error(Errc::parse, std::move(message)).at_line(line, static_cast<int>(column + 1));
}

}  // namespace ringscope::symbols::section_text
