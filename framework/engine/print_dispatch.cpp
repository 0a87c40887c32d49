#include "framework/engine/print_dispatch.hpp"

#include <cinttypes>

#include "framework/engine/trace_file.hpp"

namespace ringscope::engine {

PrintDispatch::PrintDispatch(TraceFile& file, std::span<EventHandler* const> handlers) : file_(file) {
    // Type ids are small (the kernel numbers them from 1); bigger ones get no plugin dispatch.
    // The bound comes from the declared formats: none is parsed for it.
    const size_t n = file.formats().small_id_bound();
    types_.resize(n);
    subscribers_.resize(n);
    for (EventHandler* h : handlers) {
        for_each_subscribed_type(*h, [&](uint32_t id) {
            subscribers_[id].push_back(h);
            if (h->overrides_print()) {
                types_[id].overrides.push_back(h);
                any_override_ = true;
            }
        });
    }
}

template <typename Fn>
void PrintDispatch::for_each_subscribed_type(const EventHandler& h, Fn&& fn) const {
    const std::vector<EventMatch> subs = h.subscriptions();
    if (subs.empty()) return;
    // Only the formats of subscribed events are parsed.
    const auto subscribed = file_.formats().types_if([&](std::string_view system, std::string_view name) {
        for (const auto& m : subs)
            if (m.matches(system, name)) return true;
        return false;
    });
    for (const EventType* t : subscribed)
        if (t->id < types_.size()) fn(t->id);
}

void PrintDispatch::add_annotator(EventHandler* h) {
    for_each_subscribed_type(*h, [&](uint32_t id) {
        subscribers_[id].push_back(h);
        types_[id].annotators.push_back(h);
    });
}

void PrintDispatch::annotate(const Event& ev, TextBuffer& info) {
    PerType* p = slot(ev.id());
    if (!p || p->annotators.empty()) return;
    const bool newline = !info.empty() && info.view().back() == '\n';
    if (newline) info.resize(info.size() - 1);
    const size_t plain = info.size();
    for (EventHandler* h : p->annotators) {
        const size_t mark = info.size();
        try {
            h->annotate_line(ev, info);
        } catch (const std::exception& e) {
            if (!fault_) fault_ = HandlerFault{h, e.what()};
            info.resize(mark);
        } catch (...) {
            if (!fault_) fault_ = HandlerFault{h, "unknown exception"};
            info.resize(mark);
        }
    }
    if (newline && info.size() == plain) info.push_back('\n');  // nothing appended: the line stays as it was
}

void PrintDispatch::disable_overrides(uint32_t type_id) {
    if (PerType* p = slot(type_id)) p->overrides.clear();
}

void PrintDispatch::set_raw(uint32_t type_id) {
    if (PerType* p = slot(type_id)) {
        p->raw = true;
        p->compiled_type = nullptr;
    }
}

void PrintDispatch::print_info(const Event& ev, TextBuffer& out) {
    const format::FormatCatalog& formats = file_.formats();
    if (PerType* p = slot(ev.id())) {
        if (p->compiled_type == ev.type_ptr()) {
            format::FormatCatalog::print_compiled(*p->compiled, ev, formats.swap(), out);
            return;
        }
        if (p->raw) {
            if (formats.raw_symbol_addresses())
                formats.print_raw(ev, out);
            else
                formats.print_fields(ev, out);
            return;
        }
        for (EventHandler* h : p->overrides) {
            const size_t mark = out.size();
            try {
                if (h->print(ev, *this, out)) return;
            } catch (const std::exception& e) {
                fault_ = HandlerFault{h, e.what()};
            } catch (...) {
                fault_ = HandlerFault{h, "unknown exception"};
            }
            out.resize(mark);  // a handler that declines or fails leaves nothing behind
            if (fault_) break;
        }
        if (p->overrides.empty() && ev.type_ptr()) {
            if (const format::CompiledPrint* c = formats.compiled(ev.type())) {
                p->compiled = c;
                p->compiled_type = ev.type_ptr();
            }
        }
    }
    formats.print_info(ev, out);
}

void PrintDispatch::print_default(const Event& ev, TextBuffer& out) {
    file_.formats().print_info(ev, out);
}

void PrintDispatch::register_comm(int pid, std::string_view comm) {
    file_.register_comm(pid, comm);
}

// One field's value as libtraceevent's tep_print_field() shows it.
void PrintDispatch::print_field(const Event& ev, std::string_view field, TextBuffer& out) {
    const FieldInfo* f = ev.type().find_field(field);
    if (!f) return;
    const FieldHandle h = ev.type().handle(field);
    if ((f->flags & kFieldArray) || f->is_dynamic()) {
        if (f->is_string()) {
            out.append(ev.str(h));
            return;
        }
        auto bytes = ev.bytes(h);
        out.append("ARRAY[");
        for (size_t i = 0; i < bytes.size(); ++i) {
            if (i) out.append(", ");
            out.appendf("%02x", bytes[i]);
        }
        out.push_back(']');
        return;
    }
    if (f->flags & kFieldPointer) {
        out.appendf("0x%" PRIx64, ev.u64(h));
        return;
    }
    if (f->flags & kFieldLong) {
        out.appendf("0x%" PRIx64, ev.u64(h));
        return;
    }
    if (f->is_signed()) {
        if (f->size == 4)
            out.appendf("%d", static_cast<int>(ev.i64(h)));
        else
            out.append_int(ev.i64(h));
    } else {
        if (f->size == 4)
            out.appendf("%u", static_cast<unsigned>(ev.u64(h)));
        else
            out.append_uint(ev.u64(h));
    }
}

}  // namespace ringscope::engine
