// The text of one `trace-cmd report` event line, byte for byte as trace-cmd 3.1.6 builds it
// (trace_show_data): "COMM-PID [CPU] TIME: NAME<pad to 20> INFO", the -l latency columns, the
// --ts-diff column, the "CPU:N [M EVENTS DROPPED]" line before an event that follows lost events,
// and a file/instance prefix when several are merged.
#pragma once

#include <cstdint>
#include <string_view>

#include <ringscope/event.hpp>
#include <ringscope/text_buffer.hpp>

#include "framework/format/compiled_print.hpp"
#include "framework/format/record_view.hpp"
#include "framework/output/output_buffer.hpp"

namespace ringscope::output {

struct ReportStyle {
    bool latency = false;  // -l: "%8.8s-%-5d %3d" + irq/preempt flags
    bool raw = false;      // -R: the flags print as "-0x%x" (with -l, or with flags_column)
    bool nsec = false;     // -t: nine decimals
    bool ts_diff = false;  // --ts-diff
    // trace-cmd 3.3+: the flags follow "[CPU]" on every line, " d.h1." (or "-0x%x" with -R).
    bool flags_column = false;
};

// How one input prints its times (libtracecmd's per-handle flags).
struct TimeStyle {
    bool in_usecs = true;         // seconds with decimals; else the raw number in 12 columns
    bool use_trace_clock = true;  // --ts-diff rounds to microseconds (unless -t)
};

// Where the latency columns are read from (the common fields; the same in every event type).
struct CommonLayout {
    uint32_t flags_offset = 0, flags_size = 0;  // common_flags
    uint32_t pc_offset = 0, pc_size = 0;        // common_preempt_count

    bool operator==(const CommonLayout&) const = default;
};

class ReportLineWriter {
  public:
    ReportLineWriter(OutputBuffer& out, const ReportStyle& style) : out_(out), style_(style) {}

    // "TIME" as the event line prints it (also used by --first-event), without the leading blank.
    static void append_time(TextBuffer& out, uint64_t ts, bool nsec, const TimeStyle& t);

    // One event. `prefix` is the file/instance column ("" when single); `info` the event text.
    void write(std::string_view prefix, const Event& ev, std::string_view comm, int pid, uint64_t ts,
               int64_t missed, const TimeStyle& t, const CommonLayout& common, std::string_view info);
    // The same with the info printed by a compiled print fmt straight into the output.
    void write(std::string_view prefix, const Event& ev, std::string_view comm, int pid, uint64_t ts,
               int64_t missed, const TimeStyle& t, const CommonLayout& common,
               const format::CompiledPrint& info, const format::RecordView& record);

  private:
    // Everything before the info: "COMM-PID [CPU] TIME: NAME: <pad>".
    void write_head(std::string_view prefix, const Event& ev, std::string_view comm, int pid, uint64_t ts,
                    int64_t missed, const TimeStyle& t, const CommonLayout& common);

    OutputBuffer& out_;
    ReportStyle style_;
    uint64_t last_ts_ = 0;  // --ts-diff: shared by all inputs, as trace-cmd's static
};

}  // namespace ringscope::output
