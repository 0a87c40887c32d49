// `ringscope run`'s inputs as its one event pass reads them: trace.dat files through the SDK's Trace,
// any other input through the plugin decoder that claims it (an Intel PT stream: the `ipt` plugin),
// as `report FILE.pt` reads it, with that input's plugin options from the YAML. The run's filters
// (and the command line's selection) reach every input whose events they name.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ringscope/decoder.hpp>
#include <ringscope/filter.hpp>
#include <ringscope/selection.hpp>
#include <ringscope/trace.hpp>

#include "framework/config/run_config.hpp"
#include "framework/plugin/plugin_host.hpp"

namespace ringscope::io {
class MappedFile;
}

namespace ringscope::cli {

// Whether PATH starts with trace.dat's magic (false when it does not read: opening it says why).
bool is_trace_dat_file(const std::string& path);

// One filter of the run: the YAML's `filters`, the command line's -F, and its --event (only the
// events it names: several add types).
struct RunFilter {
    std::string text;
    bool negate = false;
    config::SourcePos pos;
    bool from_yaml = true;
    bool event = false;
};
std::vector<RunFilter> run_filters(const config::RunConfig& c, const EventSelection& sel);

// What the run's filters do to one input. A filter reaches the inputs it compiles for (the ones
// with the events it names); an input that none of several positive filters reaches shows nothing,
// and so does one that none of the --event reaches.
struct FilterReach {
    std::vector<std::optional<Error>> failed;  // by filter: why it did not compile here
    bool hidden = false;
};
template <class Add>
FilterReach reach_filters(const std::vector<RunFilter>& filters, Add add) {
    FilterReach r;
    bool positive[2] = {false, false}, reached[2] = {false, false};  // by f.event
    for (const RunFilter& f : filters) {
        Status s = add(f);
        positive[f.event] |= !f.negate;
        reached[f.event] |= !f.negate && s.ok();
        r.failed.push_back(s.ok() ? std::nullopt : std::optional<Error>(s.error()));
    }
    r.hidden = (positive[0] && !reached[0]) || (positive[1] && !reached[1]);
    return r;
}

// An input a plugin decoder reads, opened for the pass, with its filters.
struct DecodedInput {
    int input = 0;  // its index among the run's inputs
    std::string path;
    std::shared_ptr<io::MappedFile> file;
    std::unique_ptr<EventStream> stream;
    FilterSet filters;
    bool filtered = false;
    FilterReach reach;
    Event head;  // the next event that passes the filters, when has_head
    bool has_head = false;

    // Moves head to the next event the filters keep; false at the end (or on an error: status()).
    bool advance();
    Status status() const;
};

// Opens input INDEX of C with the decoder that claims it, its options set as `report -O` sets
// them, and the filters and selection applied. Problems are diagnostics at the YAML's line: an
// option no plugin has or that the plugin refuses, an input no decoder reads, an --event or -F the
// input cannot have (a filter only when it compiles for no input: check_filter_reach).
std::unique_ptr<DecodedInput> open_decoded_input(const config::RunConfig& c, size_t index,
                                                 plugin::PluginHost& host, ResolverService& resolvers,
                                                 const std::vector<RunFilter>& filters,
                                                 const EventSelection& sel,
                                                 std::vector<config::Diagnostic>& errors);

// Adds F to a trace.dat input.
Status add_run_filter(Trace& t, const RunFilter& f);

// An error for each filter that compiled for none of the inputs (REACHES: one per input).
// Every input but a hidden one applies the selection's --cpu, --pid, --comm, --from and --to.
EventSelection selection_without_filters(const EventSelection& sel);
void check_filter_reach(const std::vector<RunFilter>& filters, const std::vector<FilterReach>& reaches,
                        std::vector<config::Diagnostic>& errors);

}  // namespace ringscope::cli
