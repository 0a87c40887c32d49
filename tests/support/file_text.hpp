// A whole file's bytes as a string, for tests that compare a program's output with an oracle.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ringscope::test {

// "" when the file does not open (the comparison that follows then fails and says so).
inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace ringscope::test
