// Byte-for-byte comparison of a program's output with an expected file, and a readable account of
// where they differ.
#pragma once

#include <string>

namespace ringscope::conformance {

struct Comparison {
    bool identical = false;
    size_t expected_lines = 0;
    size_t actual_lines = 0;
    size_t same_position = 0;  // lines equal at the same line number
    size_t same_anywhere = 0;  // lines of expected also in actual (multiset match, order ignored)
    std::string report;        // empty when identical: first differing line(s) and the shares above
};

// `context` lines of each side are shown from the first difference on.
Comparison compare_text(const std::string& expected, const std::string& actual, size_t context = 3);

// Reads a whole file; a name ending in ".xz" is decompressed. Returns false with `error` set on failure.
bool read_expected(const std::string& path, std::string& text, std::string& error);

}  // namespace ringscope::conformance
