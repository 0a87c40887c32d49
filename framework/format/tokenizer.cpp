#include "framework/format/tokenizer.hpp"

#include <cctype>

namespace ringscope::format {
namespace {

// ch is a char as libtraceevent sees it (signed; -1 at the end of the input).
TokType char_type(int ch) {
    if (ch == '\n') return TokType::newline;
    if (ch < 0) return TokType::none;
    if (std::isspace(ch)) return TokType::space;
    if (std::isalnum(ch) || ch == '_') return TokType::item;
    if (ch == '\'') return TokType::squote;
    if (ch == '"') return TokType::dquote;
    if (!std::isprint(ch)) return TokType::none;
    if (ch == '(' || ch == ')' || ch == ',') return TokType::delim;
    return TokType::op;
}

bool is_print(int ch) {
    return ch >= 0 && std::isprint(ch);
}
bool is_space(int ch) {
    return ch >= 0 && std::isspace(ch);
}

}  // namespace

size_t operator_length(std::string_view s, size_t at) noexcept {
    auto peek = [&](size_t k) -> int { return k < s.size() ? static_cast<unsigned char>(s[k]) : -1; };
    const int c = peek(at);
    size_t n = 1;
    bool test_equal = false;
    switch (c) {
        case '-':
            if (peek(at + 1) == '>') return 2;
            [[fallthrough]];
        case '+':
        case '|':
        case '&':
        case '>':
        case '<':
            if (peek(at + 1) == c) {
                ++n;
                test_equal = c == '>' || c == '<';
            } else {
                test_equal = true;
            }
            break;
        case '!':
        case '=':
            test_equal = true;
            break;
        default:
            break;
    }
    if (test_equal && peek(at + n) == '=') ++n;
    return n;
}

TokType Tokenizer::next_raw(std::string& tok) {
    tok.clear();
    tok_start_ = pos_;
    int ch = get();
    if (ch < 0) return TokType::none;
    TokType type = char_type(ch);
    if (type == TokType::none) return type;
    tok.push_back(static_cast<char>(ch));

    switch (type) {
        case TokType::newline:
        case TokType::delim:
            return type;
        case TokType::op: {
            const size_t n = operator_length(s_, tok_start_);
            tok.assign(s_.substr(tok_start_, n));
            pos_ = tok_start_ + n;
            return type;
        }
        case TokType::dquote:
        case TokType::squote: {
            tok.clear();  // quotes are not kept
            int quote = ch;
            int last = 0;
            for (;;) {
                do {
                    last = ch;
                    ch = get();
                    tok.push_back(static_cast<char>(ch));
                    // libtraceevent resets last here, but the next round overwrites it again.
                    if (ch == '\\' && last == '\\') last = 0;
                    if (ch <= 0) break;
                } while ((ch != quote && is_print(ch)) || last == '\\' || ch == '\n');
                tok.pop_back();  // the closing quote (or whatever ended the string)
                if (ch <= 0) type = TokType::none;
                if (type != TokType::dquote) break;
                // "a" "b" is one string
                size_t save = pos_;
                do {
                    ch = get();
                } while (is_space(ch));
                if (ch != '"') {
                    pos_ = save;
                    break;
                }
            }
            return type;
        }
        default:
            break;
    }
    while (char_type(peek()) == type) tok.push_back(static_cast<char>(get()));

    if (type == TokType::item) {
        // libtraceevent's work-around for mac80211 formats of old kernels.
        if (tok == "LOCAL_PR_FMT") {
            tok = "%s";
            return TokType::dquote;
        }
        if (tok == "STA_PR_FMT") {
            tok = " sta:%pM";
            return TokType::dquote;
        }
        if (tok == "VIF_PR_FMT") {
            tok = " vif:%p(%d)";
            return TokType::dquote;
        }
    }
    return type;
}

TokType Tokenizer::next(std::string& tok) {
    for (;;) {
        TokType t = next_raw(tok);
        if (t != TokType::space) return t;
    }
}

TokType Tokenizer::next_item(std::string& tok) {
    for (;;) {
        TokType t = next_raw(tok);
        if (t != TokType::space && t != TokType::newline) return t;
    }
}

std::pair<int, int> Tokenizer::last_position() const noexcept {
    int line = 1, col = 1;
    for (size_t i = 0; i < tok_start_ && i < s_.size(); ++i) {
        if (s_[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return {line, col};
}

}  // namespace ringscope::format
