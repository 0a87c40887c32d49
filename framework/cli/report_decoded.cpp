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

// Opens `path` with the decoder `input_format` names (or the one whose probe answers highest) and
// adds the -F filters against its types; null after a one-line error.
std::unique_ptr<Input> open_input(CliContext& ctx, const std::string& path, std::string_view input_format,
                                  symbols::ResolverRegistry& resolvers,
                                  const std::vector<std::pair<std::string, bool>>& filters) {
    auto in = std::make_unique<Input>();
    in->path = path;
    auto file = io::MappedFile::open(path);
    if (!file) {
        ctx.error(Error(std::move(file).error()).in_file(path).to_string());
        return nullptr;
    }
    in->file = std::move(*file);
    auto bytes = in->file->bytes();
    auto head = bytes.first(std::min<size_t>(bytes.size(), 65536));
    Decoder* d = choose(ctx, head, input_format);
    if (!d) {
        ctx.error(path + ": " +
                  (input_format.empty() ? std::string("no decoder recognises this input")
                                        : "no decoder for input format '" + std::string(input_format) + "'"));
        return nullptr;
    }
    InputSource src{path, -1, head, bytes};
    // The threads are the report's, formatting lines (below): a decoder decoding on threads of
    // its own besides made 3 threads on 2 cores and -j 2 slower (text 1.63 s against 1.15 s,
    // json the same or slower, `report -j 2` of a 64 MiB Intel PT stream).
    src.threads = 1;
    auto stream = d->open(src, resolvers);
    if (!stream) {
        ctx.error(Error(std::move(stream).error()).in_file(path).to_string());
        return nullptr;
    }
    in->stream = std::move(*stream);
    in->context = &in->stream->context();
    const std::vector<const EventType*> types = in->stream->types();
    for (const auto& [text, neg] : filters) {
        if (Status st = in->filters.add(text, neg, types); !st) {
            ctx.error(Error(std::move(st).error()).in_file(path).to_string());
            return nullptr;
        }
    }
    in->filtered = !in->filters.empty();
    return in;
}

// The plugins' handlers (print overrides and on_event, as for trace.dat inputs), begun on the
// first input's context, and which of them each event type goes to.
class Subscribers {
  public:
    Subscribers(const plugin::PluginHost& host, const TraceContext& first) {
        for (const auto& h : host.handlers())
            if (auto made = h.factory()) handlers_.push_back(std::move(made));
        for (auto& h : handlers_) h->begin(first);
        // Who subscribes to each event type, worked out once: asking every handler for its
        // subscriptions per event copied vectors and cost most of the run.
        for (const auto& h : handlers_) subscriptions_.push_back(h->subscriptions());
    }

    // What the report needs of type `t` of `in`. A type outside the stream's types() (`listed`
    // false, met on an event) prints no info, as it always did: the catalog is not added to while
    // the workers read it.
    TypeInfo describe(Input& in, const EventType* t, bool listed) const {
        TypeInfo ti;
        if (listed) {
            if (auto added = in.catalog.add_format(format_text(*t), t->system)) {
                ti.printable = *added;
                ti.compiled = in.catalog.compiled(**added);
                ti.stateless = !in.catalog.print_has_side_effects(**added);
            }
        }
        for (size_t i = 0; i < handlers_.size(); ++i)
            if (std::any_of(subscriptions_[i].begin(), subscriptions_[i].end(),
                            [&](const EventMatch& m) { return m.matches(t->system, t->name); }))
                ti.subscribers.push_back(handlers_[i].get());
        return ti;
    }

  private:
    std::vector<std::unique_ptr<EventHandler>> handlers_;
    std::vector<std::vector<EventMatch>> subscriptions_;
};

// Describes the stream's types() of `in`, and indexes the small ids.
void index_types(Input& in, const Subscribers& subscribers) {
    constexpr uint32_t kIdTable = 4096;
    for (const EventType* t : in.stream->types()) in.types.emplace(t, subscribers.describe(in, t, true));
    for (const auto& [t, ti] : in.types) {
        if (t->id >= kIdTable) continue;
        if (in.by_id.size() <= t->id) in.by_id.resize(t->id + 1);
        in.by_id[t->id] = {t, &ti};
    }
}

// The TypeInfo of `ev`'s type, described on the first event of a type outside types().
const TypeInfo& type_info(Input& in, const Subscribers& subscribers, const Event& ev) {
    if (const TypeInfo* ti = in.info(ev.type_ptr())) return *ti;
    auto [it, added] = in.others.try_emplace(ev.type_ptr());
    if (added) it->second = subscribers.describe(in, ev.type_ptr(), false);
    return it->second;
}

// The input whose head event is the earliest, each head read where it was taken; null when every
// stream has ended.
Input* earliest(const std::vector<std::unique_ptr<Input>>& inputs) {
    Input* best = nullptr;
    for (const auto& in : inputs) {
        Input::Head& h = in->head;
        if (!h.has) h.has = in->stream->next(h.event);
        if (h.has && (!best || h.event.timestamp() < best->head.event.timestamp())) best = in.get();
    }
    return best;
}

// Where the lines go: report's text ("cpus=N" first) or JSON/CSV records, written in the merge's
// order. With -j N, the lines of events no handler sees and whose printing changes nothing are
// formatted by N threads (ParallelLineWriter: N - 1 workers and this one, written in this
// thread's order); the others are printed here, in order, and go in among them as finished lines.
class DecodedLineSink {
  public:
    DecodedLineSink(output::OutputBuffer& out, const std::vector<std::unique_ptr<Input>>& inputs,
                    std::string_view format, const output::ReportStyle& style, int threads)
        : text_format_(format == "text"),
          records_format_(format == "csv" ? output::RecordFormat::csv : output::RecordFormat::json),
          writer_(out, style),
          ordered_lines_(ordered_text_, style) {
        if (text_format_) {
            int cpus = 0;
            for (const auto& in : inputs) cpus = std::max(cpus, in->stream->context().cpu_count());
            out.append("cpus=" + std::to_string(cpus) + "\n");
        } else {
            records_ = std::make_unique<output::EventRecordWriter>(out, records_format_);
            records_->begin();
        }
        if (threads > 1) start_workers(out, inputs, style, threads);
        if (!text_format_) ordered_records_.emplace(ordered_text_, records_format_);
    }

    bool parallel() const { return workers_ != nullptr; }

    // An event whose line a worker formats (parallel() only).
    void add_parallel(const Input& in, const Event& ev, std::string_view comm, int pid) {
        workers_->add({.type = ev.type_ptr(),
                       .source = static_cast<uint32_t>(in.index),
                       .ts = ev.timestamp(),
                       .cpu = ev.cpu(),
                       .pid = pid,
                       .missed = ev.missed_before(),
                       .comm = comm},
                      ev.payload());
    }

    // An event whose info was printed here.
    void add(const Input& in, const Event& ev, std::string_view comm, int pid, std::string_view info) {
        if (!workers_) {
            write_line(writer_, records_.get(), in, ev, comm, pid, info);
            return;
        }
        ordered_text_.clear();
        write_line(ordered_lines_, ordered_records_ ? &*ordered_records_ : nullptr, in, ev, comm, pid, info);
        workers_->add_line(ordered_text_.view());
    }

    void finish() {
        if (workers_) workers_->drain();
    }

  private:
    // The workers' closure holds what they read by value: read through references, this thread's
    // locals share cache lines with what it writes per event (-j 2 of a 64 MiB Intel PT stream,
    // alternated: 1.5-1.8 s and 2.8-3.5 s of CPU before, 1.2-1.7 s and 2.1-2.9 s after).
    void start_workers(output::OutputBuffer& out, const std::vector<std::unique_ptr<Input>>& inputs,
                       const output::ReportStyle& style, int threads) {
        std::vector<const Input*> sources;
        for (const auto& in : inputs) sources.push_back(in.get());
        workers_ = std::make_unique<output::ParallelLineWriter>(
            out, threads,
            [sources, text_format = text_format_, records_format = records_format_, style](
                const output::LineBatch& batch, std::span<const output::LineJob> jobs,
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

    const bool text_format_;
    const output::RecordFormat records_format_;
    std::unique_ptr<output::EventRecordWriter> records_;
    output::ReportLineWriter writer_;
    std::unique_ptr<output::ParallelLineWriter> workers_;
    output::OutputBuffer ordered_text_;  // a line printed here, on its way into the batches
    output::ReportLineWriter ordered_lines_;
    std::optional<output::EventRecordWriter> ordered_records_;
};

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
        auto in = open_input(ctx, path, input_format, resolvers, filters);
        if (!in) return kExitRuntime;
        in->index = inputs.size();
        inputs.push_back(std::move(in));
    }
    Subscribers subscribers(ctx.plugins(), inputs.front()->stream->context());
    for (auto& in : inputs) index_types(*in, subscribers);

    output::OutputBuffer out(stdout);
    DecodedLineSink sink(out, inputs, format, style, threads);
    Input* current = nullptr;
    DecodedPrintContext pc(current);
    TextBuffer info;
    while (Input* best = earliest(inputs)) {
        current = best;
        const Event& ev = best->head.event;
        best->head.has = false;  // the event stays valid until the stream's next()
        if (best->filtered && !best->filters.accept(ev)) continue;
        const TypeInfo& ti = type_info(*best, subscribers, ev);
        const int pid = ev.pid();
        const std::string_view comm = ev.comm();
        if (sink.parallel() && ti.subscribers.empty() && ti.stateless) {
            sink.add_parallel(*best, ev, comm, pid);
            continue;
        }
        info.clear();
        bool printed = false;
        for (EventHandler* h : ti.subscribers) {
            h->on_event(ev);
            if (!printed && h->overrides_print()) printed = h->print(ev, pc, info);
        }
        if (!printed) best->print_info(ev, ti, info);
        sink.add(*best, ev, comm, pid, info.view());
    }
    sink.finish();
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
