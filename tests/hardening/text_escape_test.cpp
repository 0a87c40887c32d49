// The one escaping function (ringscope/text_escape.hpp), target by target.
#include <ringscope/text_escape.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using ringscope::escaped;
using ringscope::TextTarget;

TEST(TextEscape, Utf8SequencesAreCheckedStrictly) {
    using ringscope::utf8_sequence_length;
    EXPECT_EQ(utf8_sequence_length("a", 0), 1u);
    EXPECT_EQ(utf8_sequence_length("\xc3\xa9", 0), 2u);          // é
    EXPECT_EQ(utf8_sequence_length("\xe2\x82\xac", 0), 3u);      // €
    EXPECT_EQ(utf8_sequence_length("\xf0\x9f\x98\x80", 0), 4u);  // U+1F600
    EXPECT_EQ(utf8_sequence_length("\xc0\xaf", 0), 0u);          // overlong '/'
    EXPECT_EQ(utf8_sequence_length("\xe0\x80\xaf", 0), 0u);      // overlong, 3 bytes
    EXPECT_EQ(utf8_sequence_length("\xed\xa0\x80", 0), 0u);      // a surrogate (U+D800)
    EXPECT_EQ(utf8_sequence_length("\xf4\x90\x80\x80", 0), 0u);  // above U+10FFFF
    EXPECT_EQ(utf8_sequence_length("\xe2\x82", 0), 0u);          // cut short
    EXPECT_EQ(utf8_sequence_length("\xff", 0), 0u);
    EXPECT_EQ(utf8_sequence_length("\x80", 0), 0u);  // a lone continuation byte
}

TEST(TextEscape, TerminalKeepsTextAndEscapesWhatDrivesTheTerminal) {
    EXPECT_EQ(escaped("plain text\twith tab\nand newline", TextTarget::terminal),
              "plain text\twith tab\nand newline");
    EXPECT_EQ(escaped("caf\xc3\xa9 \xe2\x82\xac", TextTarget::terminal), "caf\xc3\xa9 \xe2\x82\xac");
    EXPECT_EQ(escaped("\x1b[2Jred", TextTarget::terminal), "\\x1b[2Jred");
    EXPECT_EQ(escaped("a\rb\x7f", TextTarget::terminal), "a\\x0db\\x7f");
    EXPECT_EQ(escaped("\xc2\x9b"
                      "31m",
                      TextTarget::terminal),
              "\\xc2\\x9b31m");  // C1 CSI
    EXPECT_EQ(escaped("\xff\xfe", TextTarget::terminal), "\\xff\\xfe");
    EXPECT_EQ(escaped("\xed\xa0\x80", TextTarget::terminal), "\\xed\\xa0\\x80");
}

TEST(TextEscape, Utf8OnlyReplacesInvalidBytes) {
    EXPECT_EQ(escaped("\x1b ok \xc3\xa9", TextTarget::utf8), "\x1b ok \xc3\xa9");
    EXPECT_EQ(escaped("a\xff"
                      "b",
                      TextTarget::utf8),
              "a\\xff"
              "b");
    EXPECT_EQ(escaped("\xe2\x82"
                      "A",
                      TextTarget::utf8),
              "\\xe2\\x82"
              "A");
}

TEST(TextEscape, JsonIsAlwaysValid) {
    EXPECT_EQ(escaped("q\"b\\n\n\t\x01\x7f", TextTarget::json), "q\\\"b\\\\n\\n\\t\\u0001\\u007f");
    EXPECT_EQ(escaped("\xff", TextTarget::json), "\\\\xff");
    // Every byte value, and a few invalid sequences: what comes out parses as JSON (nlohmann
    // rejects invalid UTF-8) and reads back as the utf8 target's text.
    std::string all;
    for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
    all += "\xed\xa0\x80\xf4\x90\x80\x80\xe0\x80\xaf\xc2\x9b\xf0\x9f\x98\x80";
    const std::string doc = "\"" + escaped(all, TextTarget::json) + "\"";
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(doc));
    EXPECT_EQ(j.get<std::string>(), escaped(all, TextTarget::utf8));
    EXPECT_NO_THROW((void)nlohmann::json(escaped(all, TextTarget::utf8)).dump());
}

TEST(TextEscape, CsvCellsAreNeutralisedAndQuoted) {
    EXPECT_EQ(escaped("bash", TextTarget::csv), "bash");
    EXPECT_EQ(escaped("=HYPERLINK(\"x\")", TextTarget::csv), "\"'=HYPERLINK(\"\"x\"\")\"");
    EXPECT_EQ(escaped("+1", TextTarget::csv), "'+1");
    EXPECT_EQ(escaped("-2", TextTarget::csv), "'-2");
    EXPECT_EQ(escaped("@SUM(A1)", TextTarget::csv), "'@SUM(A1)");
    EXPECT_EQ(escaped("\tx", TextTarget::csv), "'\tx");
    EXPECT_EQ(escaped("a,b", TextTarget::csv), "\"a,b\"");
    EXPECT_EQ(escaped("a=b", TextTarget::csv), "a=b");  // only a leading one
    EXPECT_EQ(escaped("\xff", TextTarget::csv), "\\xff");
}

TEST(TextEscape, MessagesQuoteAShortPrefix) {
    const std::string version = "6\x1b[2J" + std::string(65536, 'A');
    const std::string q = ringscope::quoted_for_message(version);
    EXPECT_LT(q.size(), 100u);
    EXPECT_EQ(q.find('\x1b'), std::string::npos);
    EXPECT_EQ(q.substr(0, 8), "6\\x1b[2J");
    EXPECT_EQ(q.substr(q.size() - 3), "...");
    EXPECT_EQ(ringscope::quoted_for_message("7\nline two"), "7\\x0aline two");
    // Cut on a character boundary: no half of a UTF-8 sequence becomes \xHH.
    EXPECT_EQ(ringscope::quoted_for_message(std::string(63, 'a') + "\xc3\xa9", 64),
              std::string(63, 'a') + "...");
}

}  // namespace
