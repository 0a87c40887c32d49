// What the hardening tests share: the CLI, a temporary folder, shell quoting.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/file_text.hpp"
#include "tests/support/shell_command.hpp"

namespace ringscope::test {

inline std::string cli() {
    return std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
}

inline std::string sh_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// A fresh folder under the build tree, removed at the end of the test.
class TempDir {
  public:
    TempDir() {
        std::string t = std::string(RINGSCOPE_BINARY_DIR) + "/tests/tmp-hardening-XXXXXX";
        std::filesystem::create_directories(std::filesystem::path(t).parent_path());
        path_ = ::mkdtemp(t.data()) ? t : std::string();
    }
    ~TempDir() {
        std::error_code ec;
        if (!path_.empty()) std::filesystem::remove_all(path_, ec);
    }
    const std::string& path() const { return path_; }
    std::string operator/(const std::string& name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

}  // namespace ringscope::test
