// `ringscope ipt SUBCOMMAND ...`: dump (ptdump's output), sync (synchronization points) and summary
// (packets per kind, mergeable).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace ringscope::ipt {

inline constexpr const char* kCommandSummary =
    "Intel PT: dump packets (ptdump format), list sync points, summarise packets";

// args: everything after "ipt". Exit code 0 ok, 1 runtime error, 2 usage error.
int run_command(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace ringscope::ipt
