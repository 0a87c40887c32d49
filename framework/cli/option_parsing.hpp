// Boost.Program_options glue shared by the subcommands: one clear line and exit code 2 on a bad
// command line, the help text on --help.
#pragma once

#include <boost/program_options.hpp>

#include <string>
#include <vector>

#include "framework/cli/cli_context.hpp"

namespace ringscope::cli {

// Parses args into vm. Returns -1 to go on, or the exit code to return now (0 after --help,
// kExitUsage after an error). `positional` names the positional options, in order.
int parse_options(CliContext& ctx, const std::string& command, const boost::program_options::options_description& opts,
                  const boost::program_options::positional_options_description& positional,
                  const std::vector<std::string>& args, boost::program_options::variables_map& vm);

}  // namespace ringscope::cli
