#include "framework/cli/report_decoded.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include <ringscope/decoder.hpp>
#include <ringscope/handler.hpp>

#include "framework/format/format_catalog.hpp"
#include "framework/io/mapped_file.hpp"
#include "framework/io/trace_dat_types.hpp"
#include "framework/output/event_record_writer.hpp"
#include "framework/output/output_buffer.hpp"
#include "framework/output/report_line_writer.hpp"
#include "framework/symbols/resolver_registry.hpp"

namespace ringscope::cli {
namespace {

Decoder* choose(CliContext& ctx, std::span<const uint8_t> head, std::string_view input_format) {
    Decoder* best = nullptr;
    int best_score = 0;
    for (const auto& d : ctx.plugins().decoders()) {
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

struct Input {
    std::string path;
    std::shared_ptr<io::MappedFile> file;  // mapped, or read whole when it is a pipe
    std::unique_ptr<EventStream> stream;
    format::FormatCatalog catalog{8, false};
    std::map<const EventType*, const EventType*> printable;  // decoder type -> catalog type
    Event current;
    bool has = false;
};

class DecodedPrintContext final : public PrintContext {
  public:
    explicit DecodedPrintContext(Input*& current) : current_(current) {}
    void print_default(const Event& ev, TextBuffer& out) override {
        const EventType* t = current_->printable[ev.type_ptr()];
        if (!t) return;
        current_->catalog.print_info(Event(t, &ev.context(), ev.payload(), ev.timestamp(), ev.cpu()), out);
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

}  // namespace

bool wants_decoder(CliContext& ctx, const std::vector<std::string>& paths, std::string_view input_format) {
    if (paths.empty()) return false;
    if (!input_format.empty()) return input_format != "tracedat";
    auto f = io::MappedFile::open(paths.front());
    if (!f) return false;  // the trace.dat path reports the error
    auto head = (*f)->bytes().first(std::min<size_t>((*f)->bytes().size(), 65536));
    return !io::has_trace_dat_magic(head) && choose(ctx, head, input_format) != nullptr;
}

int report_decoded(CliContext& ctx, const std::vector<std::string>& paths, std::string_view input_format,
                   std::string_view format, int threads) {
    symbols::ResolverRegistry resolvers;
    for (const auto& r : ctx.plugins().resolvers()) resolvers.add(r.domain, r.resolver);

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
        src.threads = std::max(threads, 1);
        auto stream = d->open(src, resolvers);
        if (!stream) {
            ctx.error(Error(std::move(stream).error()).in_file(path).to_string());
            return kExitRuntime;
        }
        in->stream = std::move(*stream);
        for (const EventType* t : in->stream->types()) {
            auto added = in->catalog.add_format(format_text(*t), t->system);
            in->printable[t] = added ? *added : nullptr;
        }
        inputs.push_back(std::move(in));
    }

    // Print overrides and on_event of the plugins' handlers, as for trace.dat inputs.
    std::vector<std::unique_ptr<EventHandler>> handlers;
    for (const auto& h : ctx.plugins().handlers())
        if (auto made = h.factory()) handlers.push_back(std::move(made));
    for (auto& h : handlers) h->begin(inputs.front()->stream->context());
    // Who subscribes to each event type, worked out on the type's first event: asking every
    // handler for its subscriptions per event copied vectors and cost most of the run.
    std::vector<std::vector<EventMatch>> subscriptions;
    for (const auto& h : handlers) subscriptions.push_back(h->subscriptions());
    std::unordered_map<const EventType*, std::vector<EventHandler*>> subscribers;

    output::OutputBuffer out(stdout);
    const bool text = format == "text";
    std::unique_ptr<output::EventRecordWriter> records;
    if (text) {
        int cpus = 0;
        for (const auto& in : inputs) cpus = std::max(cpus, in->stream->context().cpu_count());
        out.append("cpus=" + std::to_string(cpus) + "\n");
    } else {
        records = std::make_unique<output::EventRecordWriter>(
            out, format == "csv" ? output::RecordFormat::csv : output::RecordFormat::json);
        records->begin();
    }
    output::ReportLineWriter writer(out, output::ReportStyle{});
    Input* current = nullptr;
    DecodedPrintContext pc(current);
    TextBuffer info;
    for (;;) {
        Input* best = nullptr;
        for (auto& in : inputs) {
            if (!in->has) in->has = in->stream->next(in->current);
            if (in->has && (!best || in->current.timestamp() < best->current.timestamp())) best = in.get();
        }
        if (!best) break;
        current = best;
        const Event& ev = best->current;
        info.clear();
        bool printed = false;
        auto [who, first] = subscribers.try_emplace(ev.type_ptr());
        if (first) {
            for (size_t i = 0; i < handlers.size(); ++i)
                if (std::any_of(subscriptions[i].begin(), subscriptions[i].end(),
                                [&](const EventMatch& m) { return m.matches(ev.system(), ev.name()); }))
                    who->second.push_back(handlers[i].get());
        }
        for (EventHandler* h : who->second) {
            h->on_event(ev);
            if (!printed && h->overrides_print()) printed = h->print(ev, pc, info);
        }
        if (!printed) pc.print_default(ev, info);
        std::string_view line = info.view();
        if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
        if (records)
            records->write(best->path, ev, ev.comm(), ev.pid(), ev.timestamp(), ev.missed_before(), line);
        else
            writer.write("", ev, ev.comm(), ev.pid(), ev.timestamp(), ev.missed_before(), output::TimeStyle{},
                         output::CommonLayout{}, line);
        best->has = false;
    }
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
