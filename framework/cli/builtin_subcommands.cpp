#include "framework/cli/cli_context.hpp"
#include "framework/cli/tracefs_commands.hpp"

namespace ringscope::cli {

const std::vector<Subcommand>& builtin_subcommands() {
    static const std::vector<Subcommand> table = {
        {"plugins", "list the loaded plugins and what they provide", &run_plugins},
        {"report", "print the events of trace.dat files as trace-cmd report does", &run_report},
        {"dump-pages", "walk the sub-buffers of a raw trace_pipe_raw capture", &run_dump_pages},
        {"record", "record live events from tracefs into a trace.dat", &run_record},
        {"extract", "save what the tracefs ring buffers hold now into a trace.dat", &run_extract},
        {"stream", "print live events from tracefs as report prints them", &run_stream},
        {"start", "set tracing up as record does and leave it running", &run_start},
        {"stop", "turn tracing off (tracing_on = 0)", &run_stop},
        {"show", "print the trace, snapshot or trace_pipe text of tracefs", &run_show},
        {"reset", "turn all tracing off and back to the kernel's defaults; --restore: undo start",
         &run_reset},
        {"list", "list events, systems, tracers, options, functions, clocks, instances", &run_list},
        {"stat", "what is set now in tracefs, as trace-cmd stat prints it", &run_stat},
        {"run", "run the analyses and outputs an ANALYSIS.yaml file describes", &run_run},
        {"sql", "query a run's SQLite output with SQL", &run_sql},
        {"export", "stream the events of trace files into ClickHouse, exactly once", &run_export},
        {"view", "a local web viewer of trace.dat files (timeline, tasks, events); --export: one HTML file",
         &run_view},
        {"convert", "write trace.dat files as a Perfetto protobuf trace", &run_convert},
        {"merge", "combine partial results (--partial) of an analysis into one result", &run_merge},
    };
    return table;
}

}  // namespace ringscope::cli
