// The one escaping walk behind ringscope/text_escape.hpp, as a template so that hot writers append
// into their own buffers (anything with append(const char*, size_t)).
#pragma once

#include <ringscope/text_escape.hpp>

namespace ringscope::text {

inline bool formula_lead(char c) {
    return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

// Escapes s for target into out; csv cells add their own quotes and guard (append_csv_cell).
template <class Out>
void escape_into(Out& out, std::string_view s, TextTarget target) {
    static constexpr char hex[] = "0123456789abcdef";
    const bool json = target == TextTarget::json, terminal = target == TextTarget::terminal;
    size_t run = 0;  // start of the pending run of characters written as they are
    auto flush = [&](size_t i) {
        if (i > run) out.append(s.data() + run, i - run);
    };
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f && !(json && (c == '"' || c == '\\'))) {
            ++i;
            continue;
        }
        if (c >= 0x80) {
            const size_t n = utf8_sequence_length(s, i);
            // U+0080-U+009F (C2 80-C2 9F) are the C1 controls: CSI is one of them.
            const bool c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0;
            if (n && !(terminal && c1)) {
                i += n;
                continue;
            }
            flush(i);
            const size_t bytes = n ? n : 1;
            for (size_t k = 0; k < bytes; ++k) {
                const auto b = static_cast<unsigned char>(s[i + k]);
                const char e[5] = {'\\', '\\', 'x', hex[b >> 4], hex[b & 15]};
                if (json)
                    out.append(e, 5);
                else
                    out.append(e + 1, 4);
            }
            run = i += bytes;
            continue;
        }
        // ASCII controls, DEL, and for JSON " and \ .
        if (target == TextTarget::utf8 || target == TextTarget::csv ||
            (terminal && (c == '\n' || c == '\t'))) {
            ++i;
            continue;
        }
        flush(i);
        if (json) {
            const char* short_form = c == '"'    ? "\\\""
                                     : c == '\\' ? "\\\\"
                                     : c == '\n' ? "\\n"
                                     : c == '\r' ? "\\r"
                                     : c == '\t' ? "\\t"
                                     : c == '\b' ? "\\b"
                                     : c == '\f' ? "\\f"
                                                 : nullptr;
            if (short_form) {
                out.append(short_form, 2);
            } else {
                const char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                out.append(e, 6);
            }
        } else {
            const char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            out.append(e, 4);
        }
        run = ++i;
    }
    flush(s.size());
}

// A CSV cell: formula guard, invalid UTF-8 as \xHH, RFC 4180 quotes when needed.
template <class Out>
void append_csv_cell(Out& out, std::string_view s) {
    const bool quote = s.find_first_of(",\"\n\r") != std::string_view::npos;
    if (quote) out.append("\"", 1);
    if (!s.empty() && formula_lead(s[0])) out.append("'", 1);
    if (!quote) {
        escape_into(out, s, TextTarget::csv);
    } else {
        for (size_t q; (q = s.find('"')) != std::string_view::npos; s.remove_prefix(q + 1)) {
            escape_into(out, s.substr(0, q + 1), TextTarget::csv);
            out.append("\"", 1);
        }
        escape_into(out, s, TextTarget::csv);
        out.append("\"", 1);
    }
}

}  // namespace ringscope::text
