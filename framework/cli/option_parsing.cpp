#include "framework/cli/option_parsing.hpp"

#include <iostream>

namespace po = boost::program_options;

namespace ringscope::cli {

int parse_options(CliContext& ctx, const std::string& command, const po::options_description& opts,
                  const po::positional_options_description& positional, const std::vector<std::string>& args,
                  po::variables_map& vm) {
    try {
        po::store(po::command_line_parser(args).options(opts).positional(positional).run(), vm);
        if (vm.count("help")) {
            std::cout << opts << "\n";
            return kExitOk;
        }
        po::notify(vm);
    } catch (const po::error& e) {
        ctx.error(command + ": " + e.what() + " (see ringscope " + command + " --help)");
        return kExitUsage;
    }
    return -1;
}

}  // namespace ringscope::cli
