// Tokens of a filter expression, cut the way libtraceevent's tokenizer cuts them (so that the
// same text gives the same tokens, operators included: `>>=` is one unknown operator, not `>>`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope::filter {

enum class TokenKind : uint8_t { end, item, dquote, squote, op, delim };

struct Token {
    TokenKind kind = TokenKind::end;
    std::string text;  // quotes removed, escapes kept as written (libtraceevent does the same)
    uint32_t end = 0;  // offset just past the token in the expression (libtraceevent's caret)
};

// Splits `expr`; the last token is always TokenKind::end. Characters libtraceevent cannot read
// (control or non-ASCII outside strings, an unterminated string) are errors whose column is
// 1-based in `expr`.
Expected<std::vector<Token>> tokenize(std::string_view expr);

}  // namespace ringscope::filter
