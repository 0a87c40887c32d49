// Line and field reading shared by the parsers of trace-cmd 3.4's text sections (MODULES_FILE,
// LAST_BOOT_INFO): whitespace-separated fields, hex numbers with or without "0x", and parse errors
// at a 1-based line and column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope::symbols::section_text {

struct Field {
    std::string_view text;
    size_t column = 0;  // 0-based, in its line
};

// Calls F(line_text, line_number) for every line of TEXT (1-based; the last may lack its '\n').
template <class F>
void for_each_line(std::string_view text, F&& f) {
    int number = 0;
    for (size_t at = 0; at < text.size();) {
        size_t eol = text.find('\n', at);
        if (eol == std::string_view::npos) eol = text.size();
        f(text.substr(at, eol - at), ++number);
        at = eol + 1;
    }
}

std::vector<Field> split_fields(std::string_view line);
// A hex number of 1 to 16 digits, "0x" allowed; nullopt for anything else.
std::optional<uint64_t> parse_hex(std::string_view s);
// A decimal number, '-' allowed; nullopt for anything else or past 64 bits.
std::optional<int64_t> parse_signed(std::string_view s);
Error error_at(int line, size_t column, std::string message);

}  // namespace ringscope::symbols::section_text
