// ringscope: subcommands in the spirit of trace-cmd. Built-in ones live in this folder (one file
// each); plugins add more (`ringscope ipt ...`).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/version.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/plugin_command_env.hpp"

using namespace ringscope;
using namespace ringscope::cli;

namespace {

void print_usage(std::FILE* out, CliContext& ctx, bool with_plugins) {
    std::fprintf(out,
                 "usage: ringscope [--plugin-dir DIR]... [-N] COMMAND [ARGS...]\n"
                 "\n"
                 "Reads and analyses Linux kernel traces (ftrace ring buffers, trace-cmd trace.dat).\n"
                 "\n"
                 "Commands:\n");
    for (const auto& s : builtin_subcommands()) std::fprintf(out, "  %-12s %s\n", s.name, s.summary);
    if (with_plugins) {
        for (const auto& c : ctx.plugins().commands())
            std::fprintf(out, "  %-12s %s (plugin %s)\n", c.command.name.c_str(), c.command.summary.c_str(),
                         c.plugin.c_str());
    }
    std::fprintf(out,
                 "\n"
                 "Global options:\n"
                 "  --plugin-dir DIR   also load plugins from DIR (repeatable; RINGSCOPE_PLUGIN_PATH too)\n"
                 "  -N, --no-plugins   load no plugins\n"
                 "  --version          print the version\n"
                 "  -h, --help         this text; `ringscope COMMAND --help` for a command\n");
}

}  // namespace

int main(int argc, char** argv) {
    CliContext ctx;
    std::vector<std::string> args(argv + 1, argv + argc);

    // --plugin-dir is accepted anywhere (it only adds to the search path); -N before the command.
    std::vector<std::string> rest;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--plugin-dir") {
            if (i + 1 >= args.size()) {
                ctx.error("option '--plugin-dir' needs a folder");
                return kExitUsage;
            }
            ctx.plugin_dirs.push_back(args[++i]);
        } else if (a.rfind("--plugin-dir=", 0) == 0) {
            ctx.plugin_dirs.push_back(a.substr(std::strlen("--plugin-dir=")));
        } else {
            rest.push_back(a);
        }
    }
    for (const auto& d : ctx.plugin_dirs) {
        std::error_code ec;
        if (!std::filesystem::is_directory(d, ec)) {
            ctx.error("--plugin-dir " + d + ": no such folder");
            return kExitUsage;
        }
    }
    size_t pos = 0;
    for (; pos < rest.size(); ++pos) {
        const std::string& a = rest[pos];
        if (a == "-N" || a == "--no-plugins") {
            ctx.no_plugins = true;
        } else if (a == "--version") {
            std::printf("ringscope %s (SDK ABI %u)\n", kSdkVersion, kSdkAbi);
            return kExitOk;
        } else if (a == "-h" || a == "--help") {
            print_usage(stdout, ctx, true);
            return kExitOk;
        } else if (!a.empty() && a[0] == '-') {
            ctx.error("unknown option '" + a + "' (see ringscope --help)");
            return kExitUsage;
        } else {
            break;
        }
    }
    if (pos == rest.size()) {
        print_usage(stderr, ctx, false);
        return kExitUsage;
    }
    std::string name = rest[pos];
    std::vector<std::string> sub_args(rest.begin() + static_cast<long>(pos) + 1, rest.end());
    if (name == "help") {
        print_usage(stdout, ctx, true);
        return kExitOk;
    }
    for (const auto& s : builtin_subcommands()) {
        if (name == s.name) return s.run(ctx, sub_args);
    }
    if (const Command* c = ctx.plugins().find_command(name)) {
        PluginCommandEnv env(ctx.plugins());
        try {
            return c->run(sub_args, env);
        } catch (const std::exception& e) {
            ctx.error("command '" + name + "' failed: " + e.what());
            return kExitRuntime;
        }
    }
    ctx.error("unknown command '" + name + "' (see ringscope --help)");
    return kExitUsage;
}
