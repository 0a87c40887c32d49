#include "framework/format/format_catalog.hpp"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <optional>

#include <ringscope/context.hpp>

#include "framework/format/compiled_print.hpp"
#include "framework/format/format_parser.hpp"
#include "framework/format/print_eval.hpp"
#include "framework/format/print_parser.hpp"

namespace ringscope::format {

struct FormatCatalog::Entry {
    std::string_view text;  // the caller's (declare_format); empty for add_format
    std::string system;
    std::string_view name;  // read from the text (declare_format) or the parsed type's
    uint32_t id = 0;
    mutable std::once_flag once;
    // Published (release) once the parse has filled the members below; null when it failed.
    mutable std::atomic<const EventType*> type_ptr{nullptr};
    mutable std::unique_ptr<EventType> type;
    mutable std::unique_ptr<Program> prog;
    mutable std::unique_ptr<CompiledPrint> compiled;            // null: printed by PrintEvaluator
    mutable int fmt_field = -1, buf_field = -1, ip_field = -1;  // bprint only
    mutable std::optional<Error> error;

    // Keeps a parse's results and publishes the type (once, under `once`).
    void install(ParsedFormat p) const {
        type = std::move(p.type);
        prog = std::move(p.program);
        compiled = CompiledPrint::compile(*prog);
        if (prog->is_bprint) {
            fmt_field = prog->find_field("fmt");
            buf_field = prog->find_field("buf");
            ip_field = prog->find_field("ip");
        }
        type_ptr.store(type.get(), std::memory_order_release);
    }
};

struct FormatCatalog::BprintFormat {
    std::vector<Segment> segments;
    bool failed = false;
};

namespace {

bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// "name: NAME\nID: N\nformat:" read plainly, as the kernel writes it. Anything else (comments,
// odd spacing, a bad ID) is left to the parser, which reports it.
bool scan_header(std::string_view text, std::string_view& name, uint32_t& id) {
    auto skip_blanks = [&](size_t& i) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    };
    if (!text.starts_with("name:")) return false;
    size_t i = 5;
    skip_blanks(i);
    const size_t name_at = i;
    while (i < text.size() && is_name_char(text[i])) ++i;
    if (i == name_at || i >= text.size() || text[i] != '\n') return false;
    name = text.substr(name_at, i - name_at);
    ++i;
    if (text.substr(i, 3) != "ID:") return false;
    i += 3;
    skip_blanks(i);
    const size_t id_at = i;
    uint64_t v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - id_at < 10)
        v = v * 10 + uint64_t(text[i++] - '0');
    if (i == id_at || v > 0xffffffffULL || i >= text.size() || text[i] != '\n') return false;
    // a leading 0 would read as octal in the parser
    if (text[id_at] == '0' && i - id_at > 1) return false;
    id = static_cast<uint32_t>(v);
    return text.substr(i + 1, 7) == "format:";
}

}  // namespace

FormatCatalog::FormatCatalog(int long_size, bool big_endian)
    : long_size_(long_size), big_endian_(big_endian) {}
FormatCatalog::~FormatCatalog() = default;

FormatCatalog::Entry& FormatCatalog::new_entry(std::string_view text, std::string_view system,
                                               std::string_view name, uint32_t id) {
    auto e = std::make_unique<Entry>();
    e->text = text;
    e->system = std::string(system);
    e->name = name;
    e->id = id;
    const Entry* raw = e.get();
    if (id < 65536) {
        if (by_small_id_.size() <= id) by_small_id_.resize(id + 1);
        by_small_id_[id].push_back(raw);
    } else {
        by_big_id_[id].push_back(raw);
    }
    entries_.push_back(std::move(e));
    return *entries_.back();
}

const EventType* FormatCatalog::parsed(const Entry& e) const noexcept {
    std::call_once(e.once, [&] {
        auto p = parse_format(e.text, e.system, long_size_);
        if (!p) {
            e.error = std::move(p).error();
            return;
        }
        if (p->type->id != e.id || p->type->name != e.name) {
            e.error = Error(Errc::parse, "format of " + e.system + "/" + std::string(e.name) +
                                             " reads differently when parsed");
            return;
        }
        e.install(std::move(*p));
    });
    return e.type_ptr.load(std::memory_order_acquire);
}

Expected<const EventType*> FormatCatalog::add_format(std::string_view text, std::string_view system) {
    auto p = parse_format(text, system, long_size_);
    if (!p) return std::move(p).error();
    Entry& e = new_entry({}, system, {}, p->type->id);
    std::call_once(e.once, [&] { e.install(std::move(*p)); });
    e.name = e.type->name;
    return static_cast<const EventType*>(e.type.get());
}

Status FormatCatalog::declare_format(std::string_view text, std::string_view system) {
    std::string_view name;
    uint32_t id = 0;
    if (!scan_header(text, name, id)) {
        auto t = add_format(text, system);
        if (!t) return std::move(t).error();
        return Status::success();
    }
    new_entry(text, system, name, id);
    return Status::success();
}

std::vector<std::pair<std::string, Error>> FormatCatalog::errors() const {
    std::vector<std::pair<std::string, Error>> out;
    for (const auto& e : entries_) {
        if (!parsed(*e) && e->error) out.emplace_back(e->system, *e->error);
        if (e->type_ptr.load(std::memory_order_acquire) && e->prog->too_deep) {
            Error err = *e->prog->too_deep;
            out.emplace_back(e->system, Error(err.code(), "format of " + e->system + "/" +
                                                              std::string(e->name) + ": " + err.message())
                                            .at_line(err.line(), err.column()));
        }
    }
    return out;
}

std::vector<std::pair<std::string, Error>> FormatCatalog::too_deep() const {
    std::vector<std::pair<std::string, Error>> out;
    for (const auto& e : entries_)
        if (e->type_ptr.load(std::memory_order_acquire) && e->prog->too_deep)
            out.emplace_back(e->system + "/" + std::string(e->name), *e->prog->too_deep);
    return out;
}

Status FormatCatalog::add_printk_formats(std::string_view text) {
    return parse_printk_formats(text, printk_);
}

void FormatCatalog::add_printk_string(uint64_t addr, std::string text) {
    printk_.emplace(addr, std::move(text));
}

const std::vector<const FormatCatalog::Entry*>* FormatCatalog::entries_of(uint32_t id) const noexcept {
    if (id < by_small_id_.size()) return &by_small_id_[id];
    auto it = by_big_id_.find(id);
    return it == by_big_id_.end() ? nullptr : &it->second;
}

const EventType* FormatCatalog::by_id(uint32_t id) const noexcept {
    const std::vector<const Entry*>* list = entries_of(id);
    if (!list) return nullptr;
    // the later format of an ID wins; one that does not parse is dropped
    for (auto it = list->rbegin(); it != list->rend(); ++it)
        if (const EventType* t = parsed(**it)) return t;
    return nullptr;
}

const EventType* FormatCatalog::find(std::string_view system, std::string_view name) const noexcept {
    for (const auto& e : entries_)
        if (e->name == name && (system.empty() || e->system == system))
            if (const EventType* t = parsed(*e)) return t;
    return nullptr;
}

std::vector<const EventType*> FormatCatalog::types() const {
    return types_if([](std::string_view, std::string_view) { return true; });
}

std::vector<const EventType*> FormatCatalog::types_if(
    const std::function<bool(std::string_view system, std::string_view name)>& match) const {
    std::vector<const EventType*> out;
    for (const auto& e : entries_)
        if (match(e->system, e->name))
            if (const EventType* t = parsed(*e)) out.push_back(t);
    return out;
}

bool FormatCatalog::print_fmt_failed(const EventType& type) const noexcept {
    const Entry* e = entry_for(&type);
    return e && (e->prog->failed || e->prog->runtime_failed.load(std::memory_order_relaxed));
}

const CompiledPrint* FormatCatalog::compiled(const EventType& type) const noexcept {
    const Entry* e = entry_for(&type);
    return e ? e->compiled.get() : nullptr;
}

bool FormatCatalog::print_has_side_effects(const EventType& type) const noexcept {
    const Entry* e = entry_for(&type);
    return !e || e->prog->failed || e->prog->is_bprint ||
           e->prog->runtime_failed.load(std::memory_order_relaxed);
}

// The type came from this catalog, so its entry has been parsed: only the published pointers
// are compared (another entry of the same ID may be parsing meanwhile).
const FormatCatalog::Entry* FormatCatalog::entry_for(const EventType* type) const noexcept {
    if (!type) return nullptr;
    const std::vector<const Entry*>* list = entries_of(type->id);
    if (!list) return nullptr;
    for (auto it = list->rbegin(); it != list->rend(); ++it)
        if ((*it)->type_ptr.load(std::memory_order_acquire) == type) return *it;
    return nullptr;
}

namespace {

EvalContext make_context(const Event& ev, int long_size, bool big_endian) {
    EvalContext c;
    auto p = ev.payload();
    c.data = p.data();
    c.size = static_cast<uint32_t>(p.size());
    c.trailing = static_cast<uint32_t>(ev.trailing().size());
    c.file_big_endian = big_endian;
    c.swap = big_endian != Event::host_big_endian();
    c.long_size = long_size;
    c.resolvers = &ev.context().resolvers();
    return c;
}

// libtraceevent's make_bprint_args(): the arguments the conversions of `ptr` (the format after
// its "%ps: ") take from the record's buffer, which starts at `bptr`.
void make_bprint_args(const char* ptr, uint64_t bptr, const uint8_t* data, uint64_t size, int long_size,
                      const PrintEvaluator& ev, std::vector<BArg>& args) {
    for (; bptr < size && *ptr; ++ptr) {
        if (*ptr != '%') continue;
        int ls = 0;
        int vsize = 0;
        bool number = false, string = false, star = false;
        for (;;) {
            ++ptr;
            char ch = *ptr;
            if (ch == 'l') {
                ++ls;
                continue;
            }
            if (ch == 'L') {
                ls = 2;
                continue;
            }
            if ((ch >= '0' && ch <= '9') || ch == '.' || ch == '#' || ch == '+') continue;
            if (ch == 'z' || ch == 'Z') {
                ls = 1;
                continue;
            }
            number = string = star = false;
            if (ch == 'p') {
                ls = 1;
                number = true;
                if (std::isalnum(static_cast<unsigned char>(ptr[1]))) {
                    ++ptr;
                    char k = *ptr;
                    bool special =
                        !(k == 's' || k == 'S' || k == 'x' || ((k == 'f' || k == 'F') && ptr[1] != 'w'));
                    // older kernels do not dereference: a printable first byte means a string
                    if (special && std::isprint(static_cast<signed char>(data[bptr])) &&
                        static_cast<signed char>(data[bptr]) > 0) {
                        number = false;
                        string = true;
                    }
                }
            } else if (ch == 'd' || ch == 'u' || ch == 'i' || ch == 'x' || ch == 'X' || ch == 'o') {
                number = true;
            } else if (ch == '*') {
                star = true;
            } else if (ch == 's') {
                string = true;
            }
            if (number) vsize = ls == 0 ? 4 : ls == 1 ? long_size : ls == 2 ? 8 : ls;
            if (number || star) {
                if (star) vsize = 4;
                bptr = (bptr + 3) & ~uint64_t{3};
                uint64_t v = bptr + static_cast<uint64_t>(vsize) <= size
                                 ? ev.read_number(static_cast<uint32_t>(bptr), static_cast<uint32_t>(vsize))
                                 : 0;
                bptr += static_cast<uint64_t>(vsize);
                args.push_back(BArg{false, v, {}});
                if (star) continue;  // the width was an argument; the conversion follows
            } else if (string) {
                const char* s = reinterpret_cast<const char*>(data + bptr);
                size_t room = size - bptr;
                size_t n = 0;
                while (n < room && s[n]) ++n;
                args.push_back(BArg{true, 0, std::string_view(s, n)});
                bptr += n + 1;
            }
            break;
        }
        if (!*ptr) break;
    }
}

}  // namespace

void FormatCatalog::print_info(const Event& event, TextBuffer& out) const {
    const Entry* e = entry_for(event.type_ptr());
    if (!e) {
        out.append("[UNKNOWN EVENT]");
        return;
    }
    if (e->compiled) {
        print_compiled(*e->compiled, event, swap(), out);
        return;
    }
    EvalContext c = make_context(event, long_size_, big_endian_);
    c.printk = &printk_;
    if (e->prog->is_bprint && !e->prog->failed && !e->prog->runtime_failed.load(std::memory_order_relaxed)) {
        print_bprint(*e, event, out);
        return;
    }
    PrintEvaluator(*e->prog, c).print_info(out);
}

void FormatCatalog::print_compiled(const CompiledPrint& print, const Event& event, bool swap,
                                   TextBuffer& out) {
    const auto payload = event.payload();
    const RecordView rec{payload.data(), static_cast<uint32_t>(payload.size()), swap};
    // straight into the buffer: room for the longest print, cut back to what was printed
    char* dst = out.begin_write(print.room(rec.size));
    out.end_write(dst + print.write(dst, rec));
}

void FormatCatalog::print_raw(const Event& event, TextBuffer& out) const {
    const Entry* e = entry_for(event.type_ptr());
    if (!e) {
        out.append("[UNKNOWN EVENT]");
        return;
    }
    EvalContext c = make_context(event, long_size_, big_endian_);
    c.printk = &printk_;
    c.raw_symbol_addresses = raw_symbol_addresses_;
    PrintEvaluator(*e->prog, c).print_raw(out);
}

void FormatCatalog::print_fields(const Event& event, TextBuffer& out) const {
    const Entry* e = entry_for(event.type_ptr());
    if (!e) return;
    EvalContext c = make_context(event, long_size_, big_endian_);
    c.printk = &printk_;
    PrintEvaluator(*e->prog, c).print_fields(out, false);
}

// libtraceevent's get_bprint_format() + make_bprint_args() + parse_args(), with the parse cached
// per (format address, argument count) since it depends only on those.
void FormatCatalog::print_bprint(const Entry& e, const Event& event, TextBuffer& out) const {
    const Program& prog = *e.prog;
    EvalContext c = make_context(event, long_size_, big_endian_);
    c.printk = &printk_;
    PrintEvaluator ev(prog, c);

    uint64_t addr = 0;
    if (e.fmt_field >= 0) {
        const PField& f = prog.fields[static_cast<size_t>(e.fmt_field)];
        addr = ev.read_number(f.offset, f.size);
    }
    thread_local std::string fmt;
    fmt = "%ps: ";
    auto it = printk_.find(addr);
    if (it != printk_.end()) {
        fmt += it->second;
    } else {
        char tmp[64];
        std::snprintf(tmp, sizeof tmp, "(NO FORMAT FOUND at %llx)\n", static_cast<unsigned long long>(addr));
        fmt += tmp;
    }

    thread_local std::vector<BArg> args;
    args.clear();
    if (e.buf_field >= 0 && e.ip_field >= 0) {
        const PField& ipf = prog.fields[static_cast<size_t>(e.ip_field)];
        args.push_back(BArg{false, ev.read_number(ipf.offset, ipf.size), {}});
        make_bprint_args(fmt.c_str() + 5, prog.fields[static_cast<size_t>(e.buf_field)].offset, c.data,
                         c.size, long_size_, ev, args);
    }

    const BprintFormat* bf;
    {
        std::lock_guard<std::mutex> lock(bprint_mu_);
        auto& slot = bprint_cache_[{addr, args.size()}];
        if (!slot) {
            slot = std::make_unique<BprintFormat>();
            std::vector<int32_t> idx(args.size());
            for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int32_t>(i);
            slot->segments = PrintParser::cut_segments(fmt, idx, &slot->failed);
        }
        bf = slot.get();
    }
    // A bprint that runs short of arguments marks the event failed for every later one.
    if (bf->failed) prog.runtime_failed.store(true, std::memory_order_relaxed);
    ev.print_bprint(out, bf->segments, args.data(), args.size());
}

}  // namespace ringscope::format
