#include "framework/cli/report_decoded.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <ringscope/decoder.hpp>
#include <ringscope/filter.hpp>
#include <ringscope/handler.hpp>

#include "framework/format/format_catalog.hpp"
#include "framework/io/mapped_file.hpp"
#include "framework/io/trace_dat_types.hpp"
#include "framework/output/event_record_writer.hpp"
#include "framework/output/output_buffer.hpp"
#include "framework/output/parallel_line_writer.hpp"
#include "framework/output/report_line_writer.hpp"
#include "framework/symbols/resolver_registry.hpp"

namespace ringscope::cli {
namespace {

Decoder* choose(CliContext& ctx, std::span<const uint8_t> head, std::string_view input_format) {
    return choose_decoder(ctx.plugins(), head, input_format);
}

// The kernel's format-file text for a decoder's event type, so the framework's print-fmt
// evaluator prints its events as it prints kernel events.
std::string format_text(const EventType& t) {
    auto field_line = [](const FieldInfo& f) {
        std::string decl;
        size_t bracket = f.type.find('[');
        if (bracket != std::string::npos && f.type.rfind("__data_loc", 0) != 0 &&
            f.type.rfind("__rel_loc", 0) != 0)
            decl = f.type.substr(0, bracket) + " " + f.name + f.type.substr(bracket);
        else
            decl = f.type + " " + f.name;
        return "\tfield:" + decl + ";\toffset:" + std::to_string(f.offset) +
               ";\tsize:" + std::to_string(f.size) + ";\tsigned:" + (f.is_signed() ? "1" : "0") + ";\n";
    };
    std::string s = "name: " + t.name + "\nID: " + std::to_string(t.id) + "\nformat:\n";
    for (const auto& f : t.common_fields) s += field_line(f);
    s += "\n";
    for (const auto& f : t.fields) s += field_line(f);
    s += "\nprint fmt: " + (t.print_fmt.empty() ? std::string("\"\"") : t.print_fmt) + "\n";
    return s;
}

// What the report needs of one of a decoder's event types, worked out before the first event and
// read-only afterwards (the -j workers read it).
struct TypeInfo {
    const EventType* printable = nullptr;             // the catalog's type, which prints the info
    const format::CompiledPrint* compiled = nullptr;  // its print fmt, compiled when it can be
    bool stateless = false;  // prints the same whatever was printed before: any thread may print it
    std::vector<EventHandler*> subscribers;
};

struct Input {
    size_t index = 0;
    std::string path;
    std::shared_ptr<io::MappedFile> file;  // mapped, or read whole when it is a pipe
    std::unique_ptr<EventStream> stream;
    const TraceContext* context = nullptr;  // the stream's, asked once
    format::FormatCatalog catalog{8, false};
    std::unordered_map<const EventType*, TypeInfo> types;  // the stream's types()
    // The same by id, for the small ids decoders use: a load per event instead of a hash look-up.
    std::vector<std::pair<const EventType*, const TypeInfo*>> by_id;
    std::unordered_map<const EventType*, TypeInfo> others;  // types an event brought: this thread's
    FilterSet filters;                                      // -F, against the stream's types
    bool filtered = false;
    // The event at the head of the stream: written per event by the merging thread while the -j
    // workers read the fields above, so on cache lines of its own.
    struct alignas(64) Head {
        Event event;
        bool has = false;
    } head;

    const TypeInfo* info(const EventType* t) const {
        if (t->id < by_id.size() && by_id[t->id].first == t) return by_id[t->id].second;
        auto it = types.find(t);
        return it == types.end() ? nullptr : &it->second;
    }
    // The text after "name: ", as the kernel's print fmt of the event's type says.
    void print_info(const Event& ev, const TypeInfo& ti, TextBuffer& out) const {
        if (!ti.printable) return;
        const Event printed(ti.printable, &ev.context(), ev.payload(), ev.timestamp(), ev.cpu());
        if (ti.compiled)
            format::FormatCatalog::print_compiled(*ti.compiled, printed, catalog.swap(), out);
        else
            catalog.print_info(printed, out);
    }
};

class DecodedPrintContext final : public PrintContext {
  public:
    explicit DecodedPrintContext(Input*& current) : current_(current) {}
    void print_default(const Event& ev, TextBuffer& out) override {
        if (const TypeInfo* ti = current_->info(ev.type_ptr())) current_->print_info(ev, *ti, out);
    }
    void print_field(const Event& ev, std::string_view field, TextBuffer& out) override {
        FieldHandle h = ev.type().handle(field);
        const FieldInfo* f = ev.type().find_field(field);
        if (!h || !f) return;
        if (f->is_string())
            out.append(ev.str(h));
        else
            out.append_int(ev.integer(h));
    }
    // A decoded input's task names are its decoder's (its stream hands out a read-only context).
    void register_comm(int, std::string_view) override {}

  private:
    Input*& current_;
};

// An event's line, once its info (the text after "name: ") is printed: report's text layout, or a
// JSON/CSV record when json_csv is given.
void write_line(output::ReportLineWriter& lines, output::EventRecordWriter* json_csv, const Input& in,
                const Event& ev, std::string_view comm, int pid, std::string_view info) {
    if (!info.empty() && info.back() == '\n') info.remove_suffix(1);
    if (json_csv)
        json_csv->write(in.path, ev, comm, pid, ev.timestamp(), ev.missed_before(), info);
    else
        lines.write("", ev, comm, pid, ev.timestamp(), ev.missed_before(), output::TimeStyle{},
                    output::CommonLayout{}, info);
}

}  // namespace

Decoder* choose_decoder(const plugin::PluginHost& host, std::span<const uint8_t> head,
                        std::string_view input_format) {
    Decoder* best = nullptr;
    int best_score = 0;
    for (const auto& d : host.decoders()) {
        if (!input_format.empty()) {
            if (d.decoder->format_name() == input_format) return d.decoder.get();
            continue;
        }
        int score = d.decoder->probe(head);
        if (score > best_score) {
            best = d.decoder.get();
            best_score = score;
        }
    }
    return best;
}

bool wants_decoder(CliContext& ctx, const std::vector<std::string>& paths, std::string_view input_format) {
    if (paths.empty()) return false;
    if (!input_format.empty()) return input_format != "tracedat";
    auto f = io::MappedFile::open(paths.front());
    if (!f) return false;  // the trace.dat path reports the error
    auto head = (*f)->bytes().first(std::min<size_t>((*f)->bytes().size(), 65536));
    return !io::has_trace_dat_magic(head) && choose(ctx, head, input_format) != nullptr;
}

int report_decoded(CliContext& ctx, const std::vector<std::string>& paths, std::string_view input_format,
                   std::string_view format, int jobs, Compat compat,
                   const std::vector<std::string>& print_options,
                   const std::vector<std::pair<std::string, bool>>& filters) {
    output::ReportStyle style;
    apply_compat(compat, style);
    const int threads = jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    symbols::ResolverRegistry resolvers;
    for (const auto& r : ctx.plugins().resolvers()) resolvers.add(r.domain, r.resolver);

    ctx.plugins().apply_print_options(with_compat_option(compat, print_options));
    std::vector<std::unique_ptr<Input>> inputs;
    for (const auto& path : paths) {
        auto in = std::make_unique<Input>();
        in->path = path;
        auto file = io::MappedFile::open(path);
        if (!file) {
            ctx.error(Error(std::move(file).error()).in_file(path).to_string());
            return kExitRuntime;
        }
        in->file = std::move(*file);
        auto bytes = in->file->bytes();
        auto head = bytes.first(std::min<size_t>(bytes.size(), 65536));
        Decoder* d = choose(ctx, head, input_format);
        if (!d) {
            ctx.error(path + ": " +
                      (input_format.empty()
                           ? std::string("no decoder recognises this input")
                           : "no decoder for input format '" + std::string(input_format) + "'"));
            return kExitRuntime;
        }
        InputSource src{path, -1, head, bytes};
        // The threads are the report's, formatting lines (below): a decoder decoding on threads of
        // its own besides made 3 threads on 2 cores and -j 2 slower (text 1.63 s against 1.15 s,
        // json the same or slower, `report -j 2` of a 64 MiB Intel PT stream).
        src.threads = 1;
        auto stream = d->open(src, resolvers);
        if (!stream) {
            ctx.error(Error(std::move(stream).error()).in_file(path).to_string());
            return kExitRuntime;
        }
        in->stream = std::move(*stream);
        in->context = &in->stream->context();
        const std::vector<const EventType*> types = in->stream->types();
        for (const auto& [text, neg] : filters) {
            if (Status st = in->filters.add(text, neg, types); !st) {
                ctx.error(Error(std::move(st).error()).in_file(path).to_string());
                return kExitRuntime;
            }
        }
        in->filtered = !in->filters.empty();
        in->index = inputs.size();
        inputs.push_back(std::move(in));
    }

    // Print overrides and on_event of the plugins' handlers, as for trace.dat inputs.
    std::vector<std::unique_ptr<EventHandler>> handlers;
    for (const auto& h : ctx.plugins().handlers())
        if (auto made = h.factory()) handlers.push_back(std::move(made));
    for (auto& h : handlers) h->begin(inputs.front()->stream->context());
    // Who subscribes to each event type, worked out once: asking every handler for its
    // subscriptions per event copied vectors and cost most of the run.
    std::vector<std::vector<EventMatch>> subscriptions;
    for (const auto& h : handlers) subscriptions.push_back(h->subscriptions());
    // A type outside the stream's types() (met on an event) prints no info, as it always did, and
    // is printed here: the catalog is not added to while the workers read it.
    auto describe = [&](Input& in, const EventType* t, bool listed) {
        TypeInfo ti;
        if (listed) {
            if (auto added = in.catalog.add_format(format_text(*t), t->system)) {
                ti.printable = *added;
                ti.compiled = in.catalog.compiled(**added);
                ti.stateless = !in.catalog.print_has_side_effects(**added);
            }
        }
        for (size_t i = 0; i < handlers.size(); ++i)
            if (std::any_of(subscriptions[i].begin(), subscriptions[i].end(),
                            [&](const EventMatch& m) { return m.matches(t->system, t->name); }))
                ti.subscribers.push_back(handlers[i].get());
        return ti;
    };
    constexpr uint32_t kIdTable = 4096;
    for (auto& in : inputs) {
        for (const EventType* t : in->stream->types()) in->types.emplace(t, describe(*in, t, true));
        for (const auto& [t, ti] : in->types) {
            if (t->id >= kIdTable) continue;
            if (in->by_id.size() <= t->id) in->by_id.resize(t->id + 1);
            in->by_id[t->id] = {t, &ti};
        }
    }

    output::OutputBuffer out(stdout);
    const bool text_format = format == "text";
    const auto records_format = format == "csv" ? output::RecordFormat::csv : output::RecordFormat::json;
    std::unique_ptr<output::EventRecordWriter> records;
    if (text_format) {
        int cpus = 0;
        for (const auto& in : inputs) cpus = std::max(cpus, in->stream->context().cpu_count());
        out.append("cpus=" + std::to_string(cpus) + "\n");
    } else {
        records = std::make_unique<output::EventRecordWriter>(out, records_format);
        records->begin();
    }
    output::ReportLineWriter writer(out, style);

    // -j N: the lines of events no handler sees and whose printing changes nothing are formatted by
    // N threads (ParallelLineWriter: N - 1 workers and this one, written in this thread's order);
    // the others are printed here, in order, and go in among them as finished lines.
    // The workers' closure holds what they read by value: read through references, this thread's
    // locals share cache lines with what it writes per event (-j 2 of a 64 MiB Intel PT stream,
    // alternated: 1.5-1.8 s and 2.8-3.5 s of CPU before, 1.2-1.7 s and 2.1-2.9 s after).
    std::unique_ptr<output::ParallelLineWriter> workers;
    if (threads > 1) {
        std::vector<const Input*> sources;
        for (const auto& in : inputs) sources.push_back(in.get());
        workers = std::make_unique<output::ParallelLineWriter>(
            out, threads,
            [sources, text_format, records_format, style](const output::LineBatch& batch,
                                                          std::span<const output::LineJob> jobs,
                                                          output::OutputBuffer& text) {
                output::ReportLineWriter lines(text, style);
                std::optional<output::EventRecordWriter> json_csv;
                if (!text_format) json_csv.emplace(text, records_format);
                TextBuffer line_info;
                for (const output::LineJob& j : jobs) {
                    const Input& in = *sources[j.source];
                    const Event ev(j.type, in.context, batch.payload(j), j.ts, j.cpu, j.missed);
                    line_info.clear();
                    in.print_info(ev, *in.info(j.type), line_info);
                    write_line(lines, json_csv ? &*json_csv : nullptr, in, ev, j.comm, j.pid,
                               line_info.view());
                }
            });
    }
    output::OutputBuffer ordered_text;  // a line printed here, on its way into the batches
    output::ReportLineWriter ordered_lines(ordered_text, style);
    std::optional<output::EventRecordWriter> ordered_records;
    if (!text_format) ordered_records.emplace(ordered_text, records_format);

    Input* current = nullptr;
    DecodedPrintContext pc(current);
    TextBuffer info;
    for (;;) {
        Input* best = nullptr;
        for (auto& in : inputs) {
            Input::Head& h = in->head;
            if (!h.has) h.has = in->stream->next(h.event);
            if (h.has && (!best || h.event.timestamp() < best->head.event.timestamp())) best = in.get();
        }
        if (!best) break;
        current = best;
        const Event& ev = best->head.event;
        if (best->filtered && !best->filters.accept(ev)) {
            best->head.has = false;
            continue;
        }
        const TypeInfo* ti = best->info(ev.type_ptr());
        if (!ti) {
            auto [it, added] = best->others.try_emplace(ev.type_ptr());
            if (added) it->second = describe(*best, ev.type_ptr(), false);
            ti = &it->second;
        }
        const int pid = ev.pid();
        const std::string_view comm = ev.comm();
        if (workers && ti->subscribers.empty() && ti->stateless) {
            workers->add({.type = ev.type_ptr(),
                          .source = static_cast<uint32_t>(best->index),
                          .ts = ev.timestamp(),
                          .cpu = ev.cpu(),
                          .pid = pid,
                          .missed = ev.missed_before(),
                          .comm = comm},
                         ev.payload());
            best->head.has = false;
            continue;
        }
        info.clear();
        bool printed = false;
        for (EventHandler* h : ti->subscribers) {
            h->on_event(ev);
            if (!printed && h->overrides_print()) printed = h->print(ev, pc, info);
        }
        if (!printed) best->print_info(ev, *ti, info);
        if (workers) {
            ordered_text.clear();
            write_line(ordered_lines, ordered_records ? &*ordered_records : nullptr, *best, ev, comm, pid,
                       info.view());
            workers->add_line(ordered_text.view());
        } else {
            write_line(writer, records.get(), *best, ev, comm, pid, info.view());
        }
        best->head.has = false;
    }
    if (workers) workers->drain();
    out.flush();
    for (const auto& in : inputs) {
        if (Status st = in->stream->status(); !st) {
            ctx.error(Error(std::move(st).error()).in_file(in->path).to_string());
            return kExitRuntime;
        }
    }
    return out.failed() ? kExitRuntime : kExitOk;
}

}  // namespace ringscope::cli
