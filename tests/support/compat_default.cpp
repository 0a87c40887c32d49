// Linked into every GoogleTest binary (ringscope_add_gtest): the `ringscope report` runs of a test
// print as the trace-cmd release the suite compares with (tests/CMakeLists.txt says why), also when
// the binary is started by hand; an RINGSCOPE_COMPAT already set is left as it is.
#include <cstdlib>

namespace {
[[maybe_unused]] const bool kCompatSet = [] {
    return setenv("RINGSCOPE_COMPAT", RINGSCOPE_TEST_COMPAT, 0) == 0;
}();
}  // namespace
