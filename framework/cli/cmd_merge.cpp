// `ringscope merge PARTIAL.json... [--format F] [--partial OUT.json]`: combines partial results
// (`--partial` of an analysis command) into what one run over all their inputs gives. The framework
// knows no analysis: it checks the partials agree and hands them to the command that made them.
#include <ringscope/partial_result.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/plugin_command_env.hpp"

namespace ringscope::cli {
namespace {

constexpr const char* kUsage =
    "usage: ringscope merge [--format text|json|csv] [--partial OUT.json] PARTIAL.json...\n"
    "Combines partial results (an analysis command's --partial OUT.json, one per file or shard) into\n"
    "what one run over all their inputs prints; --partial writes the merged partial instead.\n";

}  // namespace

int run_merge(CliContext& ctx, const std::vector<std::string>& args) {
    std::vector<std::string> parts, passed;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return kExitOk;
        }
        if (a == "--format" || a == "--partial") {
            if (i + 1 >= args.size()) {
                ctx.error("merge: option '" + a + "' needs a value");
                return kExitUsage;
            }
            passed.push_back(a);
            passed.push_back(args[++i]);
        } else if (!a.empty() && a[0] == '-') {
            ctx.error("merge: unknown option '" + a + "'\n" + kUsage);
            return kExitUsage;
        } else {
            parts.push_back(a);
        }
    }
    if (parts.empty()) {
        std::fputs(kUsage, stderr);
        return kExitUsage;
    }
    auto read = read_partials(parts);
    if (!read) {
        ctx.error("merge: " + read.error().to_string());
        return read.error().code() == Errc::io ? kExitRuntime : kExitUsage;
    }
    const std::vector<std::string>& command = read->front().command;
    const Command* cmd = ctx.plugins().find_command(command.front());
    if (!cmd) {
        ctx.error("merge: " + parts.front() + ": analysis '" + read->front().analysis +
                  "' needs the command '" + command.front() + "', which no loaded plugin offers");
        return kExitUsage;
    }
    std::vector<std::string> cmd_args(command.begin() + 1, command.end());
    cmd_args.push_back("--merge");
    cmd_args.insert(cmd_args.end(), passed.begin(), passed.end());
    cmd_args.insert(cmd_args.end(), parts.begin(), parts.end());
    PluginCommandEnv env(ctx.plugins());
    return cmd->run(cmd_args, env);
}

}  // namespace ringscope::cli
