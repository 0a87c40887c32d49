// `ringscope sql FILE.sqlite 'SELECT ...' [--header]`: a quick query of a run's SQLite output.
#include "framework/cli/cli_context.hpp"
#include "framework/sinks/sqlite_sink.hpp"

namespace ringscope::cli {

int run_sql(CliContext& ctx, const std::vector<std::string>& args) {
    std::vector<std::string> pos;
    bool header = false;
    for (const auto& a : args) {
        if (a == "-h" || a == "--help") {
            std::fputs(
                "usage: ringscope sql [--header] FILE.sqlite 'SELECT ...'\n"
                "Tables: events, one per event type (by name), tasks, cpus, inputs, event_types.\n",
                stdout);
            return kExitOk;
        }
        if (a == "--header")
            header = true;
        else
            pos.push_back(a);
    }
    if (pos.size() != 2) {
        ctx.error("sql: usage: ringscope sql [--header] FILE.sqlite 'SELECT ...'");
        return kExitUsage;
    }
    if (Status s = sinks::query_sqlite(pos[0], pos[1], stdout, header); !s) {
        ctx.error("sql: " + s.error().to_string());
        return s.error().code() == Errc::parse ? kExitUsage : kExitRuntime;
    }
    return kExitOk;
}

}  // namespace ringscope::cli
