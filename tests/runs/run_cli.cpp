#include "run_cli.hpp"

#include <unistd.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace ringscope::test {

std::string tmpdir(const std::string& name) {
    std::string d = std::string(RINGSCOPE_BINARY_DIR) + "/tests/runs-tmp/" + name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

Cmd sh(const std::string& cmd) {
    static int n = 0;
    std::string errf = std::string(RINGSCOPE_BINARY_DIR) + "/tests/runs-tmp/stderr." +
                       std::to_string(::getpid()) + "." + std::to_string(n++);
    fs::create_directories(fs::path(errf).parent_path());
    const ShellResult shell = run_shell(cmd + " 2>'" + errf + "'");
    Cmd r{shell.status, shell.out, read_file(errf)};
    fs::remove(errf);
    return r;
}

std::string cli_path() {
    return std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
}
std::string config(const std::string& name) {
    return std::string(RINGSCOPE_SOURCE_DIR) + "/config/" + name;
}
std::string data(const std::string& rel) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/" + rel;
}

Cmd run_config(const std::string& yaml, const std::string& outdir, const std::string& extra) {
    return sh("'" + cli_path() + "' run '" + config(yaml) + "' --quiet --set 'outputs.dir=" + outdir + "' " +
              extra);
}

}  // namespace ringscope::test
