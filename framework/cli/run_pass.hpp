// `ringscope run`'s one pass over the events: every input (trace.dat files, and the inputs plugin
// decoders read) merged in time order, feeding the event outputs (sqlite, perfetto, perfetto-trace,
// the summary behind json's inputs and html's results) and every event analysis.
#pragma once

#include <memory>
#include <vector>

#include <ringscope/selection.hpp>

#include "framework/api/read_position.hpp"
#include "framework/cli/run_inputs.hpp"
#include "framework/config/analysis_pass.hpp"
#include "framework/config/run_config.hpp"
#include "framework/sinks/html_report.hpp"
#include "framework/sinks/perfetto_sink.hpp"
#include "framework/sinks/progress_bar.hpp"
#include "framework/sinks/sqlite_sink.hpp"
#include "framework/symbols/resolver_registry.hpp"

namespace ringscope::perfetto {
class TraceWriter;
}

namespace ringscope::cli {

// The event outputs, made before the pass (under temporary names) and completed after it.
struct EventOutputs {
    sinks::RunSummary summary;
    std::unique_ptr<sinks::SqliteSink> sqlite;
    std::unique_ptr<sinks::PerfettoSink> perfetto;
    std::unique_ptr<perfetto::TraceWriter> perfetto_trace;

    EventOutputs();
    ~EventOutputs();
    Status create(const config::OutputSpec& o);
    bool wanted() const { return sqlite || perfetto || perfetto_trace; }
    std::vector<sinks::EventSink*> sinks();
    Status finish();  // complete, still under the temporary names
    Status commit();  // renamed into place
};

struct PassResult {
    std::vector<config::AnalysisTables> tables;  // each event analysis's
    api::ReadPosition read;                      // of the trace.dat inputs' CPU data
    uint64_t events = 0;
};

// The pass: the trace.dat inputs of C opened here (with FILTERS and SEL), the DECODED ones as
// opened by open_decoded_input(), merged in time order (ties: trace.dat events first).
Expected<PassResult> run_event_pass(const config::RunConfig& c,
                                    std::vector<std::unique_ptr<DecodedInput>>& decoded,
                                    const std::vector<RunFilter>& filters, const EventSelection& sel,
                                    const symbols::ResolverRegistry& resolvers, config::AnalysisPass& pass,
                                    EventOutputs& outputs, sinks::ProgressBar& progress);

}  // namespace ringscope::cli
