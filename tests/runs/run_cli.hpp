// What the `ringscope run` tests share: running the CLI (stdout and stderr apart), the paths of
// the binary, the shipped configs and the committed data, scratch folders, file contents.
#pragma once

#include <string>

#include "tests/support/file_text.hpp"
#include "tests/support/shell_command.hpp"

namespace ringscope::test {

struct Cmd {
    int code = -1;
    std::string out, err;
};

// `cmd` through /bin/sh; stderr kept apart unless the command redirects it itself.
Cmd sh(const std::string& cmd);
// build/tests/runs-tmp/NAME, emptied.
std::string tmpdir(const std::string& name);

std::string cli_path();
std::string config(const std::string& name);  // config/NAME
std::string data(const std::string& rel);     // tests/data/REL

// `ringscope run` of the shipped config YAML, its outputs in OUTDIR, with EXTRA arguments.
Cmd run_config(const std::string& yaml, const std::string& outdir, const std::string& extra = "");

}  // namespace ringscope::test
