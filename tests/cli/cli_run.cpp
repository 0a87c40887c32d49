#include "cli_run.hpp"

#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "tests/support/file_text.hpp"
#include "tests/support/shell_command.hpp"

namespace ringscope::cli_test {

Outcome ringscope(const std::string& args, const std::string& cwd) {
    static int n = 0;
    const std::string err_path = std::filesystem::temp_directory_path().string() + "/ringscope-cli-test-" +
                                 std::to_string(::getpid()) + "-" + std::to_string(n++) + ".err";
    std::string cmd = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope " + args + " 2>'" + err_path + "'";
    if (!cwd.empty()) cmd = "cd '" + cwd + "' && " + cmd;
    const test::ShellResult r = test::run_shell(cmd);
    Outcome out{r.status, r.out, test::read_file(err_path)};
    std::filesystem::remove(err_path);
    return out;
}

std::string trace(const std::string& name) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/traces/" + name;
}

std::string source(const std::string& path) {
    return std::string(RINGSCOPE_SOURCE_DIR) + "/" + path;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

std::string shared_kvm_trace() {
    const std::string p = std::string(RINGSCOPE_SHARED_DIR) + "/fixtures/kvm/kvm-extra.dat";
    return std::filesystem::exists(p) ? p : "";
}

}  // namespace ringscope::cli_test
