#include "framework/filter/filter_lexer.hpp"

#include "framework/format/tokenizer.hpp"

namespace ringscope::filter {
namespace {

bool is_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
}
bool is_item(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_print(unsigned char c) {
    return c >= 0x20 && c < 0x7f;
}

Error lex_error(std::string msg, size_t col) {
    return std::move(Error(Errc::parse, std::move(msg)).at_line(1, static_cast<int>(col)));
}

// A quoted string starting at S[I] (quote C) into T; I ends past it.
Status lex_quoted(std::string_view s, size_t& i, unsigned char c, Token& t) {
    const size_t n = s.size();
    // Up to the same unescaped quote; "a" "b" concatenates (double quotes only). A control
    // character ends the string and is dropped, as libtraceevent does.
    t.kind = c == '"' ? TokenKind::dquote : TokenKind::squote;
    const size_t open = i;
    for (;;) {
        ++i;  // past the opening quote
        // A character right after a backslash never ends the string; libtraceevent's
        // "\\ cancels itself" rule never takes effect, so `"a\\"` stays open too.
        unsigned char last = c;
        bool closed = false;
        while (i < n) {
            const unsigned char ch = static_cast<unsigned char>(s[i++]);
            if (ch >= 0x80 || ch == 0) return lex_error("Unterminated string", open + 1);
            const bool escaped = last == '\\';
            last = ch;
            if (!escaped && ch == c) {
                closed = true;
                break;
            }
            if (!is_print(ch) && ch != '\n' && !escaped) {
                closed = true;  // libtraceevent ends the string here and drops the byte
                break;
            }
            t.text.push_back(static_cast<char>(ch));
        }
        if (!closed) return lex_error("Unterminated string", open + 1);
        if (c != '"') break;
        size_t k = i;
        while (k < n && is_space(static_cast<unsigned char>(s[k]))) ++k;
        if (k < n && s[k] == '"') {
            i = k;
            continue;
        }
        break;
    }
    return {};
}

// An operator starting at S[I] into T: the longest libtraceevent's reader takes.
void lex_operator(std::string_view s, size_t& i, Token& t) {
    const size_t n = format::operator_length(s, i);
    t.kind = TokenKind::op;
    t.text.assign(s.substr(i, n));
    i += n;
    // `=~` and `!~`: the filter reader glues a '~' right after a lone '=' or '!'.
    if ((t.text == "=" || t.text == "!") && i < s.size() && s[i] == '~') t.text.push_back(s[i++]);
}

}  // namespace

Expected<std::vector<Token>> tokenize(std::string_view s) {
    std::vector<Token> out;
    size_t i = 0;
    const size_t n = s.size();

    while (i < n) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (is_space(c)) {
            ++i;
            continue;
        }
        Token t;
        if (is_item(c)) {
            size_t j = i;
            while (j < n && is_item(static_cast<unsigned char>(s[j]))) ++j;
            t.kind = TokenKind::item;
            t.text.assign(s.substr(i, j - i));
            i = j;
        } else if (c == '"' || c == '\'') {
            if (auto st = lex_quoted(s, i, c, t); !st) return std::move(st).error();
        } else if (c == '(' || c == ')' || c == ',') {
            t.kind = TokenKind::delim;
            t.text.assign(1, static_cast<char>(c));
            ++i;
        } else if (is_print(c)) {
            lex_operator(s, i, t);
        } else {
            return lex_error("Unexpected character", i + 1);
        }
        t.end = static_cast<uint32_t>(i);
        out.push_back(std::move(t));
    }
    Token end;
    end.end = static_cast<uint32_t>(n);
    out.push_back(std::move(end));
    return out;
}

}  // namespace ringscope::filter
