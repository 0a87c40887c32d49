// Helpers shared by the symbols tests.
#pragma once

#include <string>

namespace symbols_test {

// The test data directory's guest kallsyms, decompressed once into the build dir ("" when xz fails).
std::string guest_kallsyms_path();
std::string read_file(const std::string& path);

}  // namespace symbols_test
