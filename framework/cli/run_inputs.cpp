#include "framework/cli/run_inputs.hpp"

#include <algorithm>

#include "framework/cli/report_decoded.hpp"
#include "framework/io/mapped_file.hpp"
#include "framework/io/trace_dat_types.hpp"

namespace ringscope::cli {

bool is_trace_dat_file(const std::string& path) {
    auto f = io::MappedFile::open(path);
    return f && io::has_trace_dat_magic((*f)->bytes());
}

std::vector<RunFilter> run_filters(const config::RunConfig& c, const EventSelection& sel) {
    std::vector<RunFilter> out;
    for (const auto& f : c.filters) out.push_back({f.text, false, f.pos, true});
    for (const auto& [text, neg] : sel.filters) out.push_back({text, neg, {"command line", 1, 1}, false});
    for (const auto& e : sel.events) out.push_back({e, false, {"command line", 1, 1}, false, true});
    return out;
}

EventSelection selection_without_filters(const EventSelection& sel) {
    EventSelection rest = sel;
    rest.filters.clear();
    rest.events.clear();
    return rest;
}

Status add_run_filter(Trace& t, const RunFilter& f) {
    if (!f.event) return t.add_filter(f.text, f.negate);
    EventSelection one;  // --event adds the types it names
    one.events = {f.text};
    return t.select(one);
}

bool DecodedInput::advance() {
    if (reach.hidden) return has_head = false;
    while ((has_head = stream->next(head)))
        if (!filtered || filters.accept(head)) return true;
    return false;
}

Status DecodedInput::status() const {
    if (Status s = stream->status(); !s) return Error(s.error()).in_file(path);
    return Status::success();
}

namespace {

// The input's options as `report -O PLUGIN:NAME=VALUE` gives them, each checked against what the
// loaded plugins offer.
std::vector<std::string> dash_o(const config::InputSpec& in, const plugin::PluginHost& host,
                                std::vector<config::Diagnostic>& errors) {
    std::vector<std::string> out;
    for (const auto& o : in.options) {
        const auto& known = host.print_options();
        const bool has = std::any_of(known.begin(), known.end(), [&](const plugin::RegisteredPrintOption& r) {
            return r.option.plugin == o.plugin && r.option.name == o.name;
        });
        if (!has) {
            std::string offered;
            for (const auto& r : known)
                if (r.option.plugin == o.plugin) offered += (offered.empty() ? "" : ", ") + r.option.name;
            errors.push_back(
                {o.name_pos, "no loaded plugin has the option '" + o.plugin + "." + o.name + "'" +
                                 (offered.empty() ? "" : " (" + o.plugin + " has: " + offered + ")")});
            continue;
        }
        out.push_back(o.plugin + ":" + o.name + "=" + o.value);
    }
    return out;
}

// Where the YAML says what an open error is about: the option "-O PLUGIN:NAME" it names, else
// the input.
config::SourcePos error_pos(const config::InputSpec& in, const std::string& message) {
    for (const auto& o : in.options)
        if (message.find("-O " + o.plugin + ":" + o.name) != std::string::npos) return o.pos;
    return in.pos;
}

// The command line's --cpu, --pid, --comm, --from/--to as Trace::select applies them. A decoded
// input has no task list: --comm selects none of its events.
void select(DecodedInput& d, const EventSelection& sel) {
    std::vector<int> pids = sel.pids;
    if (!sel.comms.empty() && pids.empty()) pids.push_back(-2);
    d.filters.add_pids(pids);
    d.filters.limit_cpus(sel.cpus);
    d.filters.limit_time(sel.from_ns, sel.to_ns);
}

}  // namespace

std::unique_ptr<DecodedInput> open_decoded_input(const config::RunConfig& c, size_t index,
                                                 plugin::PluginHost& host, ResolverService& resolvers,
                                                 const std::vector<RunFilter>& filters,
                                                 const EventSelection& sel,
                                                 std::vector<config::Diagnostic>& errors) {
    const config::InputSpec& in = c.inputs[index];
    const size_t errors_before = errors.size();
    const std::vector<std::string> options = dash_o(in, host, errors);
    if (errors.size() != errors_before) return nullptr;
    auto d = std::make_unique<DecodedInput>();
    d->input = static_cast<int>(index);
    d->path = in.path;
    auto file = io::MappedFile::open(in.path);
    if (!file) {
        errors.push_back({in.pos, Error(std::move(file).error()).in_file(in.path).to_string()});
        return nullptr;
    }
    d->file = std::move(*file);
    const auto bytes = d->file->bytes();
    const auto head = bytes.first(std::min<size_t>(bytes.size(), 65536));
    Decoder* decoder = choose_decoder(host, head, "");
    if (!decoder) {
        errors.push_back({in.pos, "input '" + in.path +
                                      "' is neither a trace.dat file nor an input a loaded plugin's decoder "
                                      "reads (an Intel PT stream needs the plugin ipt)"});
        return nullptr;
    }
    // Options are read when the decoder opens the input: each input gets its own (or none).
    host.apply_print_options(options);
    auto stream = decoder->open(InputSource{in.path, -1, head, bytes}, resolvers);
    host.apply_print_options({});
    if (!stream) {
        const Error& e = stream.error();
        errors.push_back({error_pos(in, e.message()), Error(e).in_file(in.path).to_string()});
        return nullptr;
    }
    d->stream = std::move(*stream);
    const std::vector<const EventType*> types = d->stream->types();
    d->reach = reach_filters(filters, [&](const RunFilter& f) {
        Status s = f.event ? d->filters.limit_events(f.text, types) : d->filters.add(f.text, f.negate, types);
        return s ? s : Status(Error(s.error()).in_file(in.path));
    });
    select(*d, sel);
    d->filtered = !d->filters.empty();
    return d;
}

void check_filter_reach(const std::vector<RunFilter>& filters, const std::vector<FilterReach>& reaches,
                        std::vector<config::Diagnostic>& errors) {
    for (size_t i = 0; i < filters.size(); ++i) {
        const Error* why = nullptr;
        bool reached = reaches.empty();
        for (const FilterReach& r : reaches) {
            if (i >= r.failed.size() || !r.failed[i])
                reached = true;
            else if (!why)
                why = &*r.failed[i];
        }
        if (reached || !why) continue;
        const RunFilter& f = filters[i];
        errors.push_back({f.pos, (f.from_yaml ? "bad filter: " : "bad selection: ") + why->to_string()});
    }
}

}  // namespace ringscope::cli
