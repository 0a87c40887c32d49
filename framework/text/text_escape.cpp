#include "framework/text/text_escape.hpp"

namespace ringscope {

size_t utf8_sequence_length(std::string_view s, size_t i) noexcept {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    if (c < 0x80) return 1;
    const size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((b(k) & 0xc0) != 0x80) return 0;
    // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
    if ((c == 0xe0 && b(1) < 0xa0) || (c == 0xed && b(1) > 0x9f) || (c == 0xf0 && b(1) < 0x90) ||
        (c == 0xf4 && b(1) > 0x8f))
        return 0;
    return n;
}

void append_escaped(std::string& out, std::string_view s, TextTarget target) {
    if (target == TextTarget::csv)
        text::append_csv_cell(out, s);
    else
        text::escape_into(out, s, target);
}

std::string escaped(std::string_view s, TextTarget target) {
    std::string out;
    out.reserve(s.size());
    append_escaped(out, s, target);
    return out;
}

std::string quoted_for_message(std::string_view s, size_t max_bytes) {
    size_t cut = s.size();
    if (cut > max_bytes) {
        cut = max_bytes;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
    }
    std::string out = escaped(s.substr(0, cut), TextTarget::terminal);
    // A message is one line: the file's newlines too are shown, not followed.
    for (size_t at; (at = out.find('\n')) != std::string::npos;) out.replace(at, 1, "\\x0a");
    return cut < s.size() ? out + "..." : out;
}

}  // namespace ringscope
