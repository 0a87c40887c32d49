// report's events: the plugin handlers and print dispatch of each file, then the merge of every
// buffer in time order, each event printed as a text line (or a json/csv record).
#include <regex.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "framework/cli/report_run.hpp"
#include "framework/engine/time_slicer.hpp"

namespace ringscope::cli {
namespace {

// -n / -r: "^PATTERN$", case-insensitive, against the event's name or system (set_event_flags).
class EventPattern {
  public:
    explicit EventPattern(const std::string& pattern) {
        const std::string anchored = "^" + pattern + "$";
        ok_ = regcomp(&re_, anchored.c_str(), REG_ICASE | REG_NOSUB) == 0;
    }
    ~EventPattern() {
        if (ok_) regfree(&re_);
    }
    EventPattern(const EventPattern&) = delete;
    EventPattern& operator=(const EventPattern&) = delete;
    bool ok() const noexcept { return ok_; }
    bool matches(const EventType& t) const {
        return ok_ && (regexec(&re_, t.name.c_str(), 0, nullptr, 0) == 0 ||
                       regexec(&re_, t.system.c_str(), 0, nullptr, 0) == 0);
    }

  private:
    regex_t re_{};
    bool ok_ = false;
};

}  // namespace

int ReportRun::print_events() {
    if (!info_only() && !o_.no_plugins && !ctx_.no_plugins) add_plugin_handlers();
    // Report options work with or without -N, as trace-cmd's -w and --profile do.
    if (!info_only())
        if (int rc = add_report_option_handlers(); rc != kExitOk) return rc;
    if (int rc = make_dispatch(); rc != kExitOk) return rc;

    // --align-ts: every buffer moves by the earliest first timestamp of the top buffers.
    if (o_.align_ts && !info_only() && !reused_) {
        if (auto first = set_.first_timestamp())
            for (size_t f = 0; f < set_.size(); ++f)
                set_.file(f).clock().add_offset(-static_cast<int64_t>(*first));
    }
    bool done = false;
    if (int rc = print_head(done); rc != kExitOk || done) return rc;
    engine::EventMerger merger;
    if (int rc = build_merger(merger); rc != kExitOk) return rc;
    return print_merged(merger);
}

// Plugin handlers, one instance each per run.
void ReportRun::add_plugin_handlers() {
    ctx_.plugins().apply_print_options(with_compat_option(*o_.compat, o_.print_options));
    for (const auto& h : ctx_.plugins().handlers()) {
        try {
            if (auto inst = h.factory()) {
                handlers_.push_back(std::move(inst));
                handler_plugins_.push_back(h.plugin);
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s report: plugin %s: %s\n", ctx_.program.c_str(), h.plugin.c_str(),
                         e.what());
        }
    }
}

int ReportRun::add_report_option_handlers() {
    for (const auto& r : o_.report_options) {
        const ReportOption& opt = r.registered->option;
        std::unique_ptr<EventHandler> inst;
        try {
            inst = opt.factory(r.value);
        } catch (const std::exception& e) {
            return fail(plugin::report_option_spelling(opt) + ": " + e.what(), kExitReportUsage);
        }
        if (!inst) continue;
        events_replaced_ = events_replaced_ || opt.replaces_events;
        option_handlers_.push_back(inst.get());
        handlers_.push_back(std::move(inst));
        handler_plugins_.push_back(r.registered->plugin);
    }
    return kExitOk;
}

// Each file's print dispatch: the plugin handlers (not the report options'), -n and -r.
int ReportRun::make_dispatch() {
    std::vector<EventHandler*> raw_handlers;
    for (auto& h : handlers_)
        if (std::find(option_handlers_.begin(), option_handlers_.end(), h.get()) == option_handlers_.end())
            raw_handlers.push_back(h.get());
    std::vector<std::unique_ptr<EventPattern>> raw_pats, nohandler_pats;
    for (const auto& p : o_.raw_events) raw_pats.push_back(std::make_unique<EventPattern>(p));
    for (const auto& p : o_.nohandler_events) nohandler_pats.push_back(std::make_unique<EventPattern>(p));
    for (const auto& p : raw_pats)
        if (!p->ok()) return fail("-r: not a regular expression", kExitReportUsage);
    for (const auto& p : nohandler_pats)
        if (!p->ok()) return fail("-n: not a regular expression", kExitReportUsage);
    for (size_t f = 0; f < set_.size(); ++f) {
        auto d = std::make_unique<engine::PrintDispatch>(set_.file(f), raw_handlers);
        for (EventHandler* h : option_handlers_) d->add_annotator(h);
        // -r and -n match event names by pattern: only then is every format parsed here
        for (const EventType* t : raw_pats.empty() && nohandler_pats.empty() ? std::vector<const EventType*>{}
                                                                             : set_.file(f).types()) {
            for (const auto& p : nohandler_pats)
                if (p->matches(*t)) d->disable_overrides(t->id);
            for (const auto& p : raw_pats)
                if (p->matches(*t)) d->set_raw(t->id);
        }
        dispatch_.push_back(std::move(d));
    }
    return kExitOk;
}

// trace-cmd 3.1.6 applies --cpu to the first buffer it reads only; the other buffers and files
// then print nothing, and the CPUs merge in the order of the list (ties to the first listed).
// trace-cmd 3.3 and later iterate every CPU of every buffer and file and skip the records of the
// CPUs not listed (trace-read.c: skip_record), so the list's order does not matter. Pinned by tests.
std::vector<int> ReportRun::merged_cpus() const {
    if (*o_.compat == Compat::v3_1) return o_.cpus;
    std::vector<int> cpus = o_.cpus;
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

int ReportRun::build_merger(engine::EventMerger& merger) {
    const std::span<const engine::BufferRef> merged =
        o_.cpus.empty() || *o_.compat != Compat::v3_1 ? std::span<const engine::BufferRef>(order_)
                                                      : std::span<const engine::BufferRef>(order_).first(1);
    if (Status st = set_.build_merger(merged, merged_cpus(), merger, threads()); !st) return fail(st.error());
    // `view`'s positions: the records skipped are before --from, which the filter drops unseen (no
    // handler, subscriber or printer sees them). Not with --cpu and handlers: their look-ahead
    // reads hidden streams from the start; not with --align-ts: the index's times are not aligned.
    const bool seek = start_ && start_->position && o_.range.from_ns != 0 && !o_.align_ts &&
                      (o_.cpus.empty() || handlers_.empty());
    if (seek)
        for (auto& s : merger.sources())
            if (s.buffer == 0)
                if (auto at = start_->position(s.file_index, s.stream.cpu()))
                    engine::seek_stream_to(s.stream, *at);
    stop_past_to_ = seek && start_->stop_past_to;
    source_handle_.clear();
    for (const auto& s : merger.sources()) {
        for (size_t h = 0; h < order_.size(); ++h)
            if (order_[h].file == s.file_index && order_[h].buffer == s.buffer) source_handle_.push_back(h);
    }
    return kExitOk;
}

// -j N: lines are formatted by N threads (N - 1 workers and this one), except those of event
// types whose printing may change state (plugin overrides and subscribers, -r/-R,
// libtraceevent's bookkeeping): this thread prints those in merge order and hands them to the
// batches as finished lines, so the output stays the serial one. Workers read none of the state
// such printing changes (the comm is taken here). --ts-diff, --ts-check and json/csv keep one thread.
int ReportRun::print_merged(engine::EventMerger& merger) {
    common_.assign(set_.size(), {});
    common_known_.assign(set_.size(), 0);
    std::fflush(out_);
    output::OutputBuffer buf(out_);
    output::ReportStyle style{o_.latency, o_.raw, o_.nsec, o_.ts_diff};
    apply_compat(*o_.compat, style);
    const int jobs = threads();
    // Report options (-w, --profile) see every line in order: they keep one thread too.
    const bool parallel =
        jobs > 1 && text() && !o_.ts_diff && !o_.ts_check && !o_.raw && option_handlers_.empty();
    const bool compile_direct = text() && !o_.raw && option_handlers_.empty();
    // Filled by this thread, before any line of a type goes to a worker.
    // On the heap, with what the workers read below: not among this thread's locals.
    const auto types = std::make_unique<TypeTables>(set_, dispatch_, compile_direct);
    Sinks s(buf, style,
            o_.format == ReportFormat::json ? output::RecordFormat::json : output::RecordFormat::csv, *types);
    if (!text()) s.records.begin();
    for (auto& h : handlers_) h->begin(set_.file(0));
    swap_.assign(set_.size(), 0);
    filtered_.assign(set_.size(), 0);
    for (size_t f = 0; f < set_.size(); ++f) {
        swap_[f] = set_.file(f).formats().swap();
        filtered_[f] = !filters_[f].empty();
    }
    const bool sliceable = parallel && handlers_.empty() && o_.raw_events.empty() &&
                           std::none_of(filtered_.begin(), filtered_.end(), [](char c) { return c != 0; });
    const bool sliced_to_end = sliceable && print_slices(merger, compile_direct, style, buf, jobs);
    if (parallel && !sliced_to_end) s.workers = make_workers(buf, jobs, style, *types);
    // The workers also decompress the next chunks of each CPU, off this (the merging) thread.
    if (s.workers) merger.decompress_ahead(s.workers->task_runner());

    const engine::Record* rec = nullptr;
    engine::MergeSource* src = nullptr;
    // Printers may look at the next record of the buffer and take it (function_graph's leaves).
    engine::MergeLookahead lookahead(merger, dispatch_);
    if (!o_.cpus.empty() && !handlers_.empty())
        for (const engine::BufferRef& b : *o_.compat == Compat::v3_1 && !order_.empty()
                                              ? std::span<const engine::BufferRef>(order_).first(1)
                                              : std::span<const engine::BufferRef>(order_))
            if (Status st = lookahead.add_hidden(set_, b, o_.cpus, 1); !st) return fail(st.error());
    while (merger.next(rec, src)) {
        if (stop_past_to_ && rec->ts > o_.range.to_ns) break;
        if (auto rc = print_record(s, lookahead, merger, rec, src)) return *rc;
        if (buf.failed()) break;
    }
    return finish_output(s, merger);
}

std::unique_ptr<output::ParallelLineWriter> ReportRun::make_workers(output::OutputBuffer& buf, int jobs,
                                                                    const output::ReportStyle& style,
                                                                    TypeTables& types) {
    // The closure holds what the workers read, by value (pointers to heap data): read through
    // references, this thread's locals, written per event, share cache lines with what the
    // workers read (report_decoded, which does the same, used 20-30% less CPU with -j 2).
    std::vector<engine::TraceFile*> files;
    std::vector<engine::PrintDispatch*> dispatch;
    for (size_t f = 0; f < set_.size(); ++f) {
        files.push_back(&set_.file(f));
        dispatch.push_back(dispatch_[f].get());
    }
    return std::make_unique<output::ParallelLineWriter>(
        buf, jobs,
        [style, files, dispatch, swap = swap_, types = &types, order = order_.data(),
         handles = handles_.data(),
         common = common_.data()](const output::LineBatch& batch, std::span<const output::LineJob> batch_jobs,
                                  output::OutputBuffer& text) {
            output::ReportLineWriter batch_lines(text, style);
            TextBuffer batch_info;
            for (const output::LineJob& j : batch_jobs) {
                const size_t h = j.source;
                const size_t fi = order[h].file;
                engine::TraceFile& file = *files[fi];
                const auto payload = batch.payload(j);
                Event ev(j.type, &file, payload, j.ts, j.cpu, j.missed);
                const output::TimeStyle time_style{file.in_usecs(), file.use_trace_clock()};
                write_stateless_line(batch_lines, batch_info, types->compiled(fi, j.type->id), swap[fi] != 0,
                                     *dispatch[fi], handles[h].prefix, ev, j.comm, j.pid, time_style,
                                     common[fi]);
            }
        });
}

// One record of the merge; an exit code when the run must stop.
std::optional<int> ReportRun::print_record(Sinks& s, engine::MergeLookahead& lookahead,
                                           engine::EventMerger& merger, const engine::Record* rec,
                                           engine::MergeSource* src) {
    engine::TraceFile& file = *src->file;
    const size_t fi = src->file_index;
    const EventType* type = file.type_of(rec->data, rec->size);
    if (!type) {
        ++unknown_;
        return std::nullopt;
    }
    if (dispatch_[fi]->overridden(type->id)) rec = lookahead.enter(*src, rec);
    if (!common_known_[fi]) [[unlikely]] {
        common_[fi] = common_layout(set_, fi, type);
        common_known_[fi] = 1;
    }
    s.types.resolve(fi, type);
    Event ev(type, &file, {rec->data, rec->size}, rec->ts, rec->cpu, rec->missed, rec->trailing);
    if (irq_hidden(ev, common_[fi])) return std::nullopt;
    if (filtered_[fi] && !filters_[fi].accept(ev)) return std::nullopt;
    const size_t h = source_handle_[merger.index_of(src)];
    HandleInfo& hi = handles_[h];
    const size_t ci = static_cast<size_t>(src->stream.cpu_index());
    if (o_.ts_check && ci < hi.last_ts.size() && hi.last_ts[ci] > rec->ts) {
        s.buf.flush();
        std::fprintf(stderr, "  WARNING: Record on cpu %d went backwards: %llu to %llu delta: -%llu\n",
                     rec->cpu, static_cast<unsigned long long>(hi.last_ts[ci]),
                     static_cast<unsigned long long>(rec->ts),
                     static_cast<unsigned long long>(hi.last_ts[ci] - rec->ts));
    }
    if (ci < hi.last_ts.size()) hi.last_ts[ci] = rec->ts;

    const int pid = ev.pid();
    // The comm is taken before the info is printed: a plugin that registers names while
    // printing affects the following lines, as with trace-cmd.
    const std::string_view comm = file.comm(pid);
    if (s.workers && !s.types.in_order(fi, type->id)) {
        s.workers->add({type, static_cast<uint32_t>(h), 0, 0, rec->ts, rec->cpu, pid, rec->missed, comm},
                       {rec->data, rec->size});
        return std::nullopt;
    }
    if (auto rc = write_event(s, fi, ev, hi, pid, comm)) return rc;
    for (EventHandler* eh : dispatch_[fi]->subscribers(type->id)) {
        try {
            eh->on_event(ev);
        } catch (const std::exception& e) {
            s.flush_all();
            if (report_fault(eh, ev, e.what())) return kExitRuntime;
        } catch (...) {
            s.flush_all();
            if (report_fault(eh, ev, "unknown exception")) return kExitRuntime;
        }
    }
    return std::nullopt;
}

// The line (or record) of an event printed by this thread, in merge order.
std::optional<int> ReportRun::write_event(Sinks& s, size_t fi, const Event& ev, const HandleInfo& hi, int pid,
                                          std::string_view comm) {
    if (events_replaced_) return std::nullopt;
    engine::TraceFile& file = set_.file(fi);
    engine::PrintDispatch& d = *dispatch_[fi];
    output::ReportLineWriter& line_writer = s.workers ? s.ordered_lines : s.lines;
    const output::TimeStyle time_style{file.in_usecs(), file.use_trace_clock()};
    const std::span<const uint8_t> payload = ev.payload();
    const uint32_t size = static_cast<uint32_t>(payload.size());
    if (const format::CompiledPrint* cp = s.types.compiled(fi, ev.type().id)) {
        line_writer.write(hi.prefix, ev, comm, pid, ev.timestamp(), ev.missed_before(), time_style,
                          common_[fi], *cp, {payload.data(), size, swap_[fi] != 0});
    } else {
        s.info.clear();
        if (o_.raw && text())
            file.formats().print_raw(ev, s.info);
        else
            d.print_info(ev, s.info);
        if (text()) d.annotate(ev, s.info);
        if (auto fault = d.take_fault()) {
            s.flush_all();
            if (report_fault(fault->handler, ev, fault->what)) return kExitRuntime;
        }
        if (text())
            line_writer.write(hi.prefix, ev, comm, pid, ev.timestamp(), ev.missed_before(), time_style,
                              common_[fi], s.info.view());
        else
            s.records.write(hi.source, ev, comm, pid, ev.timestamp(), ev.missed_before(), s.info.view());
    }
    if (s.workers && !s.ordered_text.view().empty()) {
        s.workers->add_line(s.ordered_text.view());
        s.ordered_text.clear();
    }
    return std::nullopt;
}

// The report options' summaries, the output's errors, and the merge's.
int ReportRun::finish_output(Sinks& s, engine::EventMerger& merger) {
    if (s.workers) s.workers->drain();
    for (EventHandler* h : option_handlers_) {
        if (s.buf.failed()) break;
        s.info.clear();
        try {
            h->report_summary(s.info);
        } catch (const std::exception& e) {
            s.buf.flush();
            std::fprintf(stderr, "%s report: handler %s failed in its summary: %s\n", ctx_.program.c_str(),
                         std::string(h->name()).c_str(), e.what());
            return kExitReportSummary;
        }
        s.buf.append(s.info.view());
    }
    s.buf.flush();
    if (s.buf.failed()) {
        if (s.buf.error_number() == EPIPE) return kExitOk;
        return fail(Error(Errc::io, std::string("write error: ") + std::strerror(s.buf.error_number())));
    }
    if (unknown_)
        std::fprintf(stderr, "%s report: %llu records with an event id that has no format were skipped\n",
                     ctx_.program.c_str(), static_cast<unsigned long long>(unknown_));
    if (Status st = merger.status(); !st) return fail(st.error());
    return kExitOk;
}

bool ReportRun::report_fault(const EventHandler* h, const Event& ev, const std::string& what) {
    std::string plugin = "?";
    for (size_t i = 0; i < handlers_.size(); ++i)
        if (handlers_[i].get() == h) plugin = handler_plugins_[i];
    std::fprintf(stderr, "%s report: plugin %s (handler %s) failed on %s:%s cpu %d ts %llu: %s%s\n",
                 ctx_.program.c_str(), plugin.c_str(), std::string(h->name()).c_str(),
                 std::string(ev.system()).c_str(), std::string(ev.name()).c_str(), ev.cpu(),
                 static_cast<unsigned long long>(ev.timestamp()), what.c_str(),
                 o_.strict ? " (stopping: --strict)" : "");
    return o_.strict;
}

}  // namespace ringscope::cli
