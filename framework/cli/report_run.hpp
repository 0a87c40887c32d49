// One `ringscope report` run on trace.dat files: cmd_report.cpp runs it, report_info.cpp holds the
// outputs that replace the events (-p, -e, -f, -P, -E, --cpus, the "cpus=N" head, --stat, --uname,
// --version), report_events.cpp the events in merge order, report_slices.cpp -j's time slices.
#pragma once

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <ringscope/filter.hpp>
#include <ringscope/text_buffer.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/report_inputs.hpp"
#include "framework/cli/report_options.hpp"
#include "framework/cli/report_types.hpp"
#include "framework/engine/event_merger.hpp"
#include "framework/engine/merge_lookahead.hpp"
#include "framework/engine/print_dispatch.hpp"
#include "framework/engine/trace_set.hpp"
#include "framework/output/event_record_writer.hpp"
#include "framework/output/output_buffer.hpp"
#include "framework/output/parallel_line_writer.hpp"
#include "framework/output/report_line_writer.hpp"
#include "framework/output/slice_writer.hpp"

namespace ringscope::cli {

// Inputs a run leaves open for the next (`view`'s queries, report_session.hpp): the files as
// report opened them, with their symbols; READY once a run got that far.
struct KeptInputs {
    std::unique_ptr<engine::TraceSet> set = std::make_unique<engine::TraceSet>();
    bool ready = false;
};

class ReportRun {
  public:
    ReportRun(CliContext& ctx, ReportOptions o, std::FILE* out = stdout, const ReportStart* start = nullptr,
              KeptInputs* kept = nullptr)
        : ctx_(ctx),
          o_(std::move(o)),
          out_(out),
          start_(start),
          kept_(kept),
          set_(kept ? *kept->set : own_set_) {}
    int run();

  private:
    // Where the lines go while the events are merged: straight into the output, or (with -j
    // workers) into the workers' batches in order.
    struct Sinks {
        Sinks(output::OutputBuffer& b, const output::ReportStyle& style, output::RecordFormat records_format,
              TypeTables& t)
            : buf(b),
              lines(b, style),
              records(b, records_format),
              ordered_lines(ordered_text, style),
              types(t) {}
        // Output written so far, the batches included, before a message on stderr.
        void flush_all() {
            if (workers) workers->drain();
            buf.flush();
        }
        output::OutputBuffer& buf;
        output::ReportLineWriter lines;
        output::EventRecordWriter records;
        std::unique_ptr<output::ParallelLineWriter> workers;
        output::OutputBuffer ordered_text;  // with workers, the lines this thread prints itself
        output::ReportLineWriter ordered_lines;
        TextBuffer info;
        TypeTables& types;
    };

    int fail(const std::string& msg, int code) {
        std::fprintf(stderr, "%s report: %s\n", ctx_.program.c_str(), msg.c_str());
        return code;
    }
    int fail(const ReportFailure& f) { return fail(f.message, f.code); }
    int fail(const Error& e) { return fail(e.to_string(), kExitRuntime); }
    bool text() const noexcept { return o_.format == ReportFormat::text; }
    bool info_only() const noexcept { return o_.stat || o_.uname || o_.version; }
    // -j N, or the cores.
    int threads() const {
        return o_.jobs > 0 ? o_.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    }
    bool write_stdout(const std::string& s) { return std::fwrite(s.data(), 1, s.size(), out_) == s.size(); }
    // -I / -S: the event ran in a hard / soft interrupt that is to be hidden.
    bool irq_hidden(const Event& ev, const output::CommonLayout& c) const {
        if (!o_.no_irqs && !o_.no_softirqs) return false;
        const uint64_t flags = c.flags_size ? ev.u64(FieldHandle{c.flags_offset, c.flags_size, 0, true}) : 0;
        return (o_.no_irqs && (flags & 0x08)) || (o_.no_softirqs && (flags & 0x10));
    }

    int check_report_options();
    // report_info.cpp
    std::optional<int> print_file_info();
    int list_cpus();
    int print_head(bool& done);
    // report_events.cpp
    int print_events();
    void add_plugin_handlers();
    int add_report_option_handlers();
    int make_dispatch();
    int print_filter_test();  // -T
    int build_merger(engine::EventMerger& merger);
    std::vector<int> merged_cpus() const;  // --cpu as the release merges the CPUs
    int print_merged(engine::EventMerger& merger);
    std::unique_ptr<output::ParallelLineWriter> make_workers(output::OutputBuffer& buf, int jobs,
                                                             const output::ReportStyle& style,
                                                             TypeTables& types);
    std::optional<int> print_record(Sinks& s, engine::MergeLookahead& lookahead, engine::EventMerger& merger,
                                    const engine::Record* rec, engine::MergeSource* src);
    std::optional<int> write_event(Sinks& s, size_t fi, const Event& ev, const HandleInfo& hi, int pid,
                                   std::string_view comm);
    int finish_output(Sinks& s, engine::EventMerger& merger);
    // One line on stderr for a handler that threw; true when the run must stop (--strict).
    bool report_fault(const EventHandler* h, const Event& ev, const std::string& what);
    // report_slices.cpp: -j N by time slices; true when it printed every event (else MERGER stands
    // where the last slice written stopped, for the serial merge to go on).
    bool print_slices(engine::EventMerger& merger, bool compile_direct, const output::ReportStyle& style,
                      output::OutputBuffer& buf, int jobs);
    struct SliceWorker;
    struct SliceResult;
    bool print_slice(SliceWorker& w, SliceResult& res, size_t index, output::OutputBuffer& out,
                     const output::ReportStyle& style, const output::SliceWriter& writer);

    CliContext& ctx_;
    ReportOptions o_;
    std::FILE* out_;             // stdout, or where `view` collects the lines
    const ReportStart* start_;   // `view`'s positions for --from, or none
    bool stop_past_to_ = false;  // seeked: the merged records end at the first one past --to
    KeptInputs* kept_;           // where the files stay open between runs, or none
    bool reused_ = false;        // this run found them open (and already set up)
    engine::TraceSet own_set_;
    engine::TraceSet& set_;           // own_set_ or kept_'s
    std::vector<FilterSet> filters_;  // per file
    std::vector<std::unique_ptr<EventHandler>> handlers_;
    std::vector<std::string> handler_plugins_;    // the plugin of each handler
    std::vector<EventHandler*> option_handlers_;  // those of report options (-w, --profile)
    bool events_replaced_ = false;                // a report option prints instead of the events
    std::vector<std::unique_ptr<engine::PrintDispatch>> dispatch_;  // per file

    // The merged buffers (trace-cmd's handles), in the order trace-cmd reads them.
    std::vector<engine::BufferRef> order_;
    std::vector<HandleInfo> handles_;
    std::vector<size_t> source_handle_;  // the handle of each merge source
    // Per file: the common field layout (for -l and -I/-S, from the file's first event), whether
    // it is known yet, whether the file's data is byte-swapped, whether it has filters.
    std::vector<output::CommonLayout> common_;
    std::vector<char> common_known_, swap_, filtered_;
    uint64_t unknown_ = 0;  // records of an event id that has no format
};

}  // namespace ringscope::cli
