#include "framework/cli/cli_context.hpp"

namespace ringscope::cli {

const std::vector<Subcommand>& builtin_subcommands() {
    static const std::vector<Subcommand> table = {
        {"plugins", "list the loaded plugins and what they provide", &run_plugins},
    };
    return table;
}

}  // namespace ringscope::cli
