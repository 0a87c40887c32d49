// The informational outputs of `trace-cmd report` (3.1.6) that list what a file carries instead of
// its events: --stat, --uname, --version, -e, -E, -f, -P, --cpus / --first-event / --last-event.
// Each appends exactly trace-cmd's text to a std::string.
#pragma once

#include <cstdint>
#include <string>

#include "framework/output/report_line_writer.hpp"

namespace ringscope::engine {
class TraceFile;
}

namespace ringscope::output {

// --stat (tracecmd_print_stats): the kernel's per-CPU statistics, then where each CPU's data is.
void append_stat(std::string& out, const engine::TraceFile& file);
// --uname (also prints the version, as trace-cmd falls through) and --version.
void append_uname(std::string& out, const engine::TraceFile& file);
void append_version(std::string& out, const engine::TraceFile& file);
// -e: "file is little endian and host is little endian".
void append_endian(std::string& out, const engine::TraceFile& file);
// -E: "system:name" of every event type, sorted by system, name, id.
void append_event_list(std::string& out, const engine::TraceFile& file);
// -f: the kallsyms functions as libtraceevent keeps them (sorted by address, "ADDR NAME [MOD]").
void append_functions(std::string& out, const engine::TraceFile& file);
// -P: the printk formats, sorted by address.
void append_printk(std::string& out, const engine::TraceFile& file);

}  // namespace ringscope::output
