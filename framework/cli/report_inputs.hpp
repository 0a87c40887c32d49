// `ringscope report`'s inputs as trace-cmd merges them: the files (and their instances, trace-cmd's
// handles), the name column that tells their lines apart, and the filters of each file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ringscope/filter.hpp>

#include "framework/cli/report_options.hpp"
#include "framework/engine/trace_set.hpp"

namespace ringscope::cli {

// What is known per merged buffer (trace-cmd's handle): its prefix column and its CPU bookkeeping.
struct HandleInfo {
    std::string prefix;
    std::string source;             // --format json/csv: "FILE" or "FILE:INSTANCE"
    std::vector<uint64_t> last_ts;  // --ts-check, by CPU index
};

// The name column before each line: the file's name with several inputs, the instance's for an
// instance's lines. trace-cmd widens it as it meets each file's instances, so the "cpus=N" line of
// a file is aligned to the names seen before it.
class PrefixColumn {
  public:
    PrefixColumn(const engine::TraceSet& set, bool multi);
    // This file's instances join the column from here on.
    void add_instances(const engine::TraceFile& file);
    // Whether lines carry the column: several files, or instances in the file met last.
    bool shown() const noexcept { return multi_ || instances_; }
    std::string prefix(const engine::BufferRef& ref) const;

  private:
    const engine::TraceSet& set_;
    bool multi_;
    size_t max_name_ = 0;
    bool instances_ = false;
};

std::string base_name(const std::string& path);

// A failure of the run: the message for "PROGRAM report: MESSAGE" and the exit code.
struct ReportFailure {
    std::string message;
    int code = kExitRuntime;
};

// The exit status of a filter that does not take (trace-cmd dies with errno, 255 for 0). 3.4: 22.
// 3.1: trace-cmd 3.1.6's errno is what reading the last input left: libtraceevent sets EINVAL
// where a print fmt's __print_array/__print_hex argument does not parse
// (FormatCatalog::any_print_fmt_sets_einval), and a v6 file's saved cmdlines, read after its
// formats, set it back to 0; a v7 file's formats are read after them (checked with gdb and
// `trace-cmd convert --file-version 6|7` of one trace: 255 and 22).
int filter_failure_exit(const ReportOptions& o, const engine::TraceSet& set);

// Opens every input of O into SET (with THREADS threads to read them).
std::optional<ReportFailure> open_report_inputs(const ReportOptions& o, int threads, engine::TraceSet& set);

// Symbols: the plugins' resolvers (unless PLUGINS is null), guest symbols, --kallsyms.
std::optional<ReportFailure> add_report_symbols(const ReportOptions& o, const plugin::PluginHost* plugins,
                                                engine::TraceSet& set);

// The -F filters that reach input file F, and whether the --pid/--comm filter does. trace-cmd 3.1.6
// gives them all to the first file (its one list is used up there). 3.3 and later keep a global list
// (the filters given before any -i, or with no -i) that reaches every file, and one list per -i for
// the filters that follow it; but when global filters come before the first -i, that file's list
// is the global list itself, so the filters after the first -i (and the --pid/--comm filter
// trace-cmd adds to the first file's list) reach every file too.
struct FileFilters {
    std::vector<std::pair<std::string, bool>> filters;  // text, negated, in command-line order
    bool pids = false;
};
FileFilters filters_of_input(const ReportOptions& o, size_t f);

// The filters of each file of SET (-F, -v, --pid, --comm, --from/--to/--event); an empty set where
// a file has none.
std::optional<ReportFailure> make_report_filters(const ReportOptions& o, engine::TraceSet& set,
                                                 std::vector<FilterSet>& filters);

}  // namespace ringscope::cli
