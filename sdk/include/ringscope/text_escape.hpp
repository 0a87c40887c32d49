// Text that comes from a trace (task names, string fields, version strings, file names) is data:
// wherever it leaves ringscope other than in report's trace-cmd-compatible lines, it is escaped by
// one function, for its target:
//   every target  a byte that does not begin a well-formed UTF-8 sequence (RFC 3629: no overlong
//                 forms, no surrogates, nothing above U+10FFFF) is written as the 4 characters \xHH;
//   utf8          nothing else (text for a JSON library, SQLite, ...);
//   terminal      also the C0 controls but tab and newline, DEL and the C1 controls (U+0080-U+009F),
//                 byte by byte as \xHH: no escape sequence from a file reaches a terminal;
//   json          the body of a JSON string: " and \ escaped, \n \r \t \b \f, other controls as
//                 \u00HH; the \ of an \xHH is escaped too (the JSON text "\\xff");
//   csv           a cell: a text starting with = + - @ tab or CR gets a ' in front (no formula in a
//                 spreadsheet), and it is quoted (RFC 4180) when it holds , " CR or LF.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ringscope {

enum class TextTarget : unsigned char { utf8, terminal, json, csv };

// Length of the well-formed UTF-8 sequence at s[i], or 0.
size_t utf8_sequence_length(std::string_view s, size_t i) noexcept;

void append_escaped(std::string& out, std::string_view s, TextTarget target);
std::string escaped(std::string_view s, TextTarget target);

// At most max_bytes of s (cut on a character boundary), escaped for a terminal and newlines as
// \x0a, with "..." when cut: for one-line messages that quote a file's text (a 64 KB version string).
std::string quoted_for_message(std::string_view s, size_t max_bytes = 64);

}  // namespace ringscope
