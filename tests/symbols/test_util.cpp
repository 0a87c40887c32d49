#include "test_util.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace symbols_test {

std::string guest_kallsyms_path() {
    static const std::string path = [] {
        std::filesystem::path out = std::filesystem::path(RINGSCOPE_BINARY_DIR) / "tests" / "data-symbols";
        std::filesystem::create_directories(out);
        out /= "kvm-guest-kallsyms";
        if (!std::filesystem::exists(out)) {
            std::string tmp = out.string() + ".tmp";
            std::string cmd =
                std::string("xz -dc '") + RINGSCOPE_TEST_DATA_DIR + "/kvm/guest-kallsyms.xz' > '" + tmp + "'";
            if (std::system(cmd.c_str()) != 0) return std::string();
            std::filesystem::rename(tmp, out);
        }
        return out.string();
    }();
    return path;
}

}  // namespace symbols_test
