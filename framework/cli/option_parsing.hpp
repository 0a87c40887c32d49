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

// For commands that run a COMMAND (record, stream): `opts` declares a "command" option; the words
// after "--", or else the positional words, become `command`. Returns as parse_options.
int parse_options_with_command(CliContext& ctx, const std::string& name,
                               const boost::program_options::options_description& opts,
                               const std::vector<std::string>& args, boost::program_options::variables_map& vm,
                               std::vector<std::string>& command);

}  // namespace ringscope::cli
