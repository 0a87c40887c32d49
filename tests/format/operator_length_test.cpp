// The operator rule the format tokenizer and the filter lexer share (libtraceevent's
// __read_token): the longest operator at a position, as each of the two readers takes it.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "framework/filter/filter_lexer.hpp"
#include "framework/format/tokenizer.hpp"

namespace {

using ringscope::format::operator_length;

TEST(OperatorLength, LongestOperatorLibtraceeventTakes) {
    const struct {
        std::string_view text;
        size_t length;
    } cases[] = {{"->x", 2}, {"-=", 2}, {"--=", 2}, {"-", 1},   {"++", 2}, {"+=", 2}, {"||", 2}, {"|=", 2},
                 {"&&=", 2}, {"&", 1},  {"<<=", 3}, {">>=", 3}, {"<<", 2}, {"<=", 2}, {">", 1},  {"!=", 2},
                 {"==", 2},  {"=~", 1}, {"!~", 1},  {"*=", 1},  {"/", 1},  {"?", 1},  {"~", 1}};
    for (const auto& c : cases) EXPECT_EQ(operator_length(c.text, 0), c.length) << c.text;
    EXPECT_EQ(operator_length("a<<=b", 1), 3u);
    EXPECT_EQ(operator_length("a<", 1), 1u);  // at the end of the text
}

TEST(OperatorLength, TokenizerAndFilterLexerTakeTheSameOperators) {
    ringscope::format::Tokenizer tk("a <<= b->c != d");
    std::string tok;
    std::string ops;
    for (ringscope::format::TokType t; (t = tk.next(tok)) != ringscope::format::TokType::none;)
        if (t == ringscope::format::TokType::op) ops += tok + " ";
    EXPECT_EQ(ops, "<<= -> != ");

    auto tokens = ringscope::filter::tokenize("a <<= b->c != d =~ e !~ f");
    ASSERT_TRUE(tokens);
    std::string filter_ops;
    for (const auto& t : *tokens)
        if (t.kind == ringscope::filter::TokenKind::op) filter_ops += t.text + " ";
    EXPECT_EQ(filter_ops, "<<= -> != =~ !~ ");  // the filter's own rule glues '~'
}

}  // namespace
