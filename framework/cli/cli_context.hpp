// What every subcommand gets: its arguments and the plugin set, loaded on first use.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/plugin/plugin_host.hpp"

namespace ringscope::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntime = 1;
inline constexpr int kExitUsage = 2;

class CliContext {
  public:
    std::string program = "ringscope";
    std::vector<std::string> plugin_dirs;  // --plugin-dir, in order
    bool no_plugins = false;               // -N / --no-plugins
    bool local_plugins_only = false;       // report -L: not the build's or installation's plugins

    // Loads plugins once (none with no_plugins) and prints load diagnostics to stderr.
    plugin::PluginHost& plugins();

    // "ringscope: message" on stderr.
    void error(const std::string& message) const;

  private:
    std::unique_ptr<plugin::PluginHost> host_;
};

// A built-in subcommand. args excludes the program and the subcommand name.
struct Subcommand {
    const char* name;
    const char* summary;
    int (*run)(CliContext& ctx, const std::vector<std::string>& args);
};

const std::vector<Subcommand>& builtin_subcommands();

int run_plugins(CliContext& ctx, const std::vector<std::string>& args);
int run_report(CliContext& ctx, const std::vector<std::string>& args);
// Where `view` knows a --from/--to range starts (from its index): the run prints what it prints
// from the start, reading less.
struct ReportStart {
    // A position of the top buffer's stream of FILE's CPU at or before its first record at --from,
    // every record before it earlier than --from; nullopt: that stream is read from its start.
    std::function<std::optional<uint64_t>(size_t file, int cpu)> position;
    // The merged records come in time order: the run ends at the first one past --to.
    bool stop_past_to = false;
};
// `report` on trace.dat files with ARGS, its text written to OUT instead of stdout (`view`).
int run_report_to(CliContext& ctx, const std::vector<std::string>& args, std::FILE* out,
                  const ReportStart* start = nullptr);
int run_view(CliContext& ctx, const std::vector<std::string>& args);
int run_dump_pages(CliContext& ctx, const std::vector<std::string>& args);
int run_record(CliContext& ctx, const std::vector<std::string>& args);
int run_extract(CliContext& ctx, const std::vector<std::string>& args);
int run_stream(CliContext& ctx, const std::vector<std::string>& args);
int run_run(CliContext& ctx, const std::vector<std::string>& args);
int run_sql(CliContext& ctx, const std::vector<std::string>& args);
int run_export(CliContext& ctx, const std::vector<std::string>& args);
int run_merge(CliContext& ctx, const std::vector<std::string>& args);
int run_convert(CliContext& ctx, const std::vector<std::string>& args);

}  // namespace ringscope::cli
