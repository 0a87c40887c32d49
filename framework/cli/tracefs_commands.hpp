// trace-cmd's everyday commands over tracefs: start (cmd_record.cpp), stop, show, reset, list,
// stat; and the journal recovery every tracefs command runs first.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "framework/cli/cli_context.hpp"

namespace ringscope::cli {

// Restores what a killed ringscope left changed (its journal), saying so on stderr.
void recover_tracing_state(CliContext& ctx);

int run_start(CliContext& ctx, const std::vector<std::string>& args);
int run_stop(CliContext& ctx, const std::vector<std::string>& args);
int run_show(CliContext& ctx, const std::vector<std::string>& args);
int run_reset(CliContext& ctx, const std::vector<std::string>& args);
int run_list(CliContext& ctx, const std::vector<std::string>& args);
int run_stat(CliContext& ctx, const std::vector<std::string>& args);

// getopt-style walk of short options in order: `spec` as getopt's ("B:at"; "e::" = an optional
// value, taken when the next word does not start with '-'), long options as "--name" or
// "--name=value" listed in `longs` (a trailing '=' when they take a value). `fn(option, value)`
// returns -1 to go on or an exit code. -h/--help print `help` (exit 0); unknown options: a usage
// error naming them.
struct OptionEvent {
    std::string name;  // "B" or "restore"
    std::string value;
    bool has_value = false;
};
int walk_options(CliContext& ctx, const char* command, const std::vector<std::string>& args, const char* spec,
                 const std::vector<std::string>& longs, const char* help,
                 const std::function<int(const OptionEvent&)>& fn, std::vector<std::string>* rest = nullptr);

}  // namespace ringscope::cli
