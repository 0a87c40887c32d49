// The tokenizer libtraceevent uses for `format` files and print fmts, reproduced token for token:
// the print fmt grammar is only as well defined as this tokenizer, so its quirks are kept (a string
// ends at a tab, adjacent strings concatenate, `"\\"` does not close a string, ...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace ringscope::format {

// The length of the operator at text[at] (a printable character that is no letter, digit, quote
// or delimiter): the longest libtraceevent's __read_token takes ("->", "++", "<<=", ">=", "!=",
// ...; 1 for any other). The filter lexer takes its operators by the same rule.
size_t operator_length(std::string_view text, size_t at) noexcept;

enum class TokType : uint8_t { error, none, space, newline, op, delim, item, dquote, squote };

class Tokenizer {
  public:
    explicit Tokenizer(std::string_view text) : s_(text) {}

    // One token, blanks included (libtraceevent's __read_token).
    TokType next_raw(std::string& tok);
    // Skips blanks, returns newlines (tep_read_token).
    TokType next(std::string& tok);
    // Skips blanks and newlines (read_token_item).
    TokType next_item(std::string& tok);

    size_t offset() const noexcept { return pos_; }
    // Where the last token started, as 1-based line and column (for errors).
    std::pair<int, int> last_position() const noexcept;

  private:
    int get() noexcept { return pos_ < s_.size() ? static_cast<signed char>(s_[pos_++]) : -1; }
    int peek() const noexcept { return pos_ < s_.size() ? static_cast<signed char>(s_[pos_]) : -1; }

    std::string_view s_;
    size_t pos_ = 0;
    size_t tok_start_ = 0;
};

}  // namespace ringscope::format
