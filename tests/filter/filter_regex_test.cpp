// The filters' regexes (framework/filter/filter_regex): POSIX basic regexes as glibc's regcomp
// reads them (REG_ICASE), matched by RE2. glibc's regexec is the reference for what matches;
// what RE2 cannot match in linear time or bounded memory is refused (issue 25: a back-reference
// pattern crashed regexec, nested bounded repeats took 3.8 GB in regcomp).
#include <gtest/gtest.h>

#include <regex.h>

#include <string>
#include <vector>

#include "framework/filter/filter_regex.hpp"

using ringscope::filter::Regex;

namespace {

// What glibc says, for the patterns it handles safely.
bool glibc_search(const std::string& pattern, const std::string& subject, bool* valid) {
    regex_t re;
    *valid = regcomp(&re, pattern.c_str(), REG_ICASE | REG_NOSUB) == 0;
    if (!*valid) return false;
    const bool m = regexec(&re, subject.c_str(), 0, nullptr, 0) == 0;
    regfree(&re);
    return m;
}

}  // namespace

TEST(FilterRegex, MatchesWhatGlibcMatches) {
    const std::vector<std::string> patterns = {
        "",
        "^kworker",
        "WORKER",
        "kw.*:1$",
        "^$",
        "k[w]or",
        "a\\{2\\}",
        "a\\{2,\\}",
        "a\\{,2\\}b",
        "\\(ab\\)*c",
        "\\(ab\\)\\{2\\}",
        "a+",
        "a\\+",
        "a?",
        "a\\?b",
        "x\\|kw",
        "^\\(k\\|x\\)w",
        "*a",
        "^*a",
        "\\(*a\\)",
        "a**",
        "a*\\{2\\}",
        "[]a]",
        "[^]a]x",
        "[\\]",
        "[a-c]w",
        "[[:digit:]]",
        "[[:alpha:]]/",
        "[[:upper:]]",
        "a$b",
        "a^b",
        "^k.*1$",
        "\\.",
        "0:1$",
        "\\w\\+/",
        "\\s",
        "[.]",
        "[*]",
        "{1}",
        "a|b",
        "(a)",
        "\\}",
        "[[=k=]]w",
        "[[.k.]]w",
        "k\\(w\\)\\?",
        "\\(\\)",
        "\\`k",
        "1\\'",
    };
    const std::vector<std::string> subjects = {"kworker/0:1", "KWORKER", "",     "aab",  "abababc", "a+",
                                               "a|b",         "(a)",     "*a",   "x]ax", "\\",      "a$b",
                                               "a^b",         "{1}",     "ab c", "x.y",  "}",       "aaab"};
    for (const auto& p : patterns) {
        auto re = Regex::compile(p);
        for (const auto& s : subjects) {
            bool valid = false;
            const bool expected = glibc_search(p, s, &valid);
            SCOPED_TRACE("pattern '" + p + "' subject '" + s + "' -> " +
                         ringscope::filter::bre_to_re2(p).value_or("(none)"));
            ASSERT_EQ(re != nullptr, valid);
            if (re) {
                EXPECT_EQ(re->search(s), expected);
            }
        }
    }
}

TEST(FilterRegex, InvalidPatternsAreRefusedAsGlibcRefusesThem) {
    for (const char* p :
         {"[", "a\\", "\\(a", "a\\)", "a\\{1", "a\\{2,1\\}", "\\{1\\}", "[[:nope:]]", "[b-a]"}) {
        SCOPED_TRACE(p);
        bool valid = true;
        glibc_search(p, "x", &valid);
        EXPECT_FALSE(valid);
        EXPECT_EQ(Regex::compile(p), nullptr);
    }
}

TEST(FilterRegex, PatternsWithoutALinearTimeMatchAreRefused) {
    // regexec recursed without end on the first (CVE-2018-20796); regcomp took 3.8 GB on the last.
    for (const char* p : {"\\(\\)\\(\\1\\1\\)*", "\\(a*\\)*\\1", "\\<word\\>", "a\\{1001\\}",
                          "\\(\\(\\(a\\{1,100\\}\\)\\{1,100\\}\\)\\{1,100\\}\\)"}) {
        SCOPED_TRACE(p);
        EXPECT_EQ(Regex::compile(p), nullptr);
    }
    // A long subject takes linear time: a pattern that backtracks exponentially elsewhere.
    auto re = Regex::compile("\\(a*\\)*b");
    ASSERT_NE(re, nullptr);
    EXPECT_FALSE(re->search(std::string(100000, 'a')));
    EXPECT_TRUE(re->search(std::string(100000, 'a') + "b"));
}

TEST(FilterRegex, SubjectsNeedNoTerminatingNul) {
    const std::string bytes = "kworkerXYZ";
    auto re = Regex::compile("er$");
    ASSERT_NE(re, nullptr);
    EXPECT_TRUE(re->search(std::string_view(bytes).substr(0, 7)));
    EXPECT_FALSE(re->search(std::string_view(bytes)));
    auto re2 = Regex::compile("k.*r$");
    EXPECT_TRUE(re2->search(std::string_view(bytes).substr(0, 7)));
}
