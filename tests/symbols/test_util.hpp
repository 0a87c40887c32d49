// Helpers shared by the symbols tests.
#pragma once

#include <string>

#include "tests/support/file_text.hpp"

namespace symbols_test {

// The test data directory's guest kallsyms, decompressed once into the build dir ("" when xz fails).
std::string guest_kallsyms_path();
using ringscope::test::read_file;

}  // namespace symbols_test
