#include "framework/cli/run_pass.hpp"

#include <optional>

#include "framework/perfetto/trace_writer.hpp"

namespace ringscope::cli {

EventOutputs::EventOutputs() = default;
EventOutputs::~EventOutputs() = default;

Status EventOutputs::create(const config::OutputSpec& o) {
    if (!o.sqlite.empty()) {
        auto s = sinks::SqliteSink::create(o.sqlite);
        if (!s) return s.error();
        sqlite = std::move(*s);
    }
    if (!o.perfetto.empty()) {
        auto s = sinks::PerfettoSink::create(o.perfetto);
        if (!s) return s.error();
        perfetto = std::move(*s);
    }
    if (!o.perfetto_trace.empty()) {
        perfetto::WriterOptions wopts;
        wopts.compact_sched = o.perfetto_compact_sched;
        auto w = perfetto::TraceWriter::create(o.perfetto_trace, wopts);
        if (!w) return w.error();
        perfetto_trace = std::move(*w);
    }
    return Status::success();
}

std::vector<sinks::EventSink*> EventOutputs::sinks() {
    std::vector<sinks::EventSink*> out{&summary};
    if (sqlite) out.push_back(sqlite.get());
    if (perfetto) out.push_back(perfetto.get());
    return out;
}

Status EventOutputs::finish() {
    if (sqlite)
        if (Status s = sqlite->finish(); !s) return s;
    if (perfetto)
        if (Status s = perfetto->finish(); !s) return s;
    if (perfetto_trace)
        if (Status s = perfetto_trace->finish(); !s) return s;
    return Status::success();
}

Status EventOutputs::commit() {
    for (sinks::EventSink* s :
         {static_cast<sinks::EventSink*>(sqlite.get()), static_cast<sinks::EventSink*>(perfetto.get())})
        if (s)
            if (Status st = s->commit(); !st) return st;
    return Status::success();
}

namespace {

// How far the event pass has read the trace.dat inputs.
api::ReadPosition read_position(std::vector<Trace>& traces) {
    api::ReadPosition sum;
    for (auto& t : traces) {
        api::ReadPosition p = api::read_position(t);
        sum.bytes_loaded += p.bytes_loaded;
        sum.bytes_total += p.bytes_total;
        sum.pages_total += p.pages_total;
    }
    return sum;
}

// The trace.dat inputs, opened with the run's filters and selection.
struct TraceInputs {
    std::vector<Trace> traces;
    std::vector<int> input;    // by trace: its index among the run's inputs
    std::vector<bool> hidden;  // by trace: no positive filter reaches it
};

Expected<TraceInputs> open_traces(const config::RunConfig& c, const std::vector<RunFilter>& filters,
                                  const EventSelection& sel, const symbols::ResolverRegistry& resolvers) {
    TraceOpenOptions o;
    o.load_plugins = false;
    o.resolvers = &resolvers;
    const EventSelection rest = selection_without_filters(sel);  // -F, --event: reach_filters
    TraceInputs out;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        if (!is_trace_dat_file(c.inputs[i].path)) continue;
        auto t = Trace::open(c.inputs[i].path, o);
        if (!t) return t.error();
        FilterReach reach = reach_filters(filters, [&](const RunFilter& f) { return add_run_filter(*t, f); });
        if (Status s = t->select(rest); !s) return s.error();
        out.traces.push_back(std::move(*t));
        out.input.push_back(static_cast<int>(i));
        out.hidden.push_back(reach.hidden);
    }
    return out;
}

// The decoded input whose next event comes first, if it comes before LIMIT (when given).
DecodedInput* earliest(std::vector<std::unique_ptr<DecodedInput>>& decoded, std::optional<uint64_t> limit) {
    DecodedInput* best = nullptr;
    for (auto& d : decoded)
        if (d->has_head && (!limit || d->head.timestamp() < *limit) &&
            (!best || d->head.timestamp() < best->head.timestamp()))
            best = d.get();
    return best;
}

}  // namespace

Expected<PassResult> run_event_pass(const config::RunConfig& c,
                                    std::vector<std::unique_ptr<DecodedInput>>& decoded,
                                    const std::vector<RunFilter>& filters, const EventSelection& sel,
                                    const symbols::ResolverRegistry& resolvers, config::AnalysisPass& pass,
                                    EventOutputs& outputs, sinks::ProgressBar& progress) {
    auto opened = open_traces(c, filters, sel, resolvers);
    if (!opened) return opened.error();
    TraceInputs& in = *opened;
    const std::vector<sinks::EventSink*> sinks = outputs.sinks();
    auto declare = [&](int input, int cpus) -> Status {
        const config::InputSpec& spec = c.inputs[static_cast<size_t>(input)];
        for (auto* s : sinks)
            if (Status st = s->add_input(input, spec.name, spec.path, cpus); !st) return st;
        return Status::success();
    };
    for (size_t k = 0; k < in.traces.size(); ++k) {
        if (Status s = declare(in.input[k], in.traces[k].cpu_count()); !s) return s.error();
        if (outputs.perfetto_trace)
            outputs.perfetto_trace->add_input(in.input[k], api::trace_file(in.traces[k]));
    }
    for (auto& d : decoded) {
        if (Status s = declare(d->input, d->stream->context().cpu_count()); !s) return s.error();
        if (outputs.perfetto_trace)
            outputs.perfetto_trace->add_input(d->input, d->stream->context().cpu_count());
        d->advance();
    }
    PassResult r;
    auto feed = [&](int input, const Event& ev) {
        for (auto* s : sinks) s->on_event(input, ev);
        if (outputs.perfetto_trace) outputs.perfetto_trace->on_event(input, ev.cpu(), ev);
        pass.on_event(ev);
        if ((++r.events & 255) == 0 && progress.enabled()) {
            api::ReadPosition p = read_position(in.traces);
            progress.update(r.events, p.bytes_loaded, p.bytes_total);
        }
    };
    // The decoded inputs' events before LIMIT, in time order.
    auto drain = [&](std::optional<uint64_t> limit) {
        while (DecodedInput* d = earliest(decoded, limit)) {
            feed(d->input, d->head);
            d->advance();
        }
    };
    progress.stage("events");
    if (!in.traces.empty())
        pass.begin(in.traces.front().context());
    else if (!decoded.empty())
        pass.begin(decoded.front()->stream->context());
    std::vector<Trace*> ptrs;
    for (auto& t : in.traces) ptrs.push_back(&t);
    Trace::iterate_multi(ptrs, [&](Trace& t, const Event& ev, int) {
        const size_t k = static_cast<size_t>(&t - in.traces.data());
        if (in.hidden[k]) return 0;
        drain(ev.timestamp());
        feed(in.input[k], ev);
        return 0;
    });
    drain(std::nullopt);
    for (auto& t : in.traces)
        if (!t.status()) return t.status().error();
    for (auto& d : decoded)
        if (Status s = d->status(); !s) return s.error();
    r.read = read_position(in.traces);
    r.tables = pass.end();
    return r;
}

}  // namespace ringscope::cli
