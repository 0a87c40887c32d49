#include "framework/cli/option_parsing.hpp"

#include <algorithm>
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

int parse_options_with_command(CliContext& ctx, const std::string& name, const po::options_description& opts,
                               const std::vector<std::string>& args, po::variables_map& vm,
                               std::vector<std::string>& command) {
    std::vector<std::string> own(args);
    if (auto it = std::find(own.begin(), own.end(), "--"); it != own.end()) {
        command.assign(it + 1, own.end());
        own.erase(it, own.end());
    }
    po::positional_options_description pos;
    pos.add("command", -1);
    if (int rc = parse_options(ctx, name, opts, pos, own, vm); rc >= 0) return rc;
    if (vm.count("command")) {
        auto c = vm["command"].as<std::vector<std::string>>();
        command.insert(command.begin(), c.begin(), c.end());
    }
    return -1;
}

}  // namespace ringscope::cli
