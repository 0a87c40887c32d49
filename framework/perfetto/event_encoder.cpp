#include "framework/perfetto/event_encoder.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include <ringscope/resolver.hpp>

#include "framework/engine/print_dispatch.hpp"
#include "framework/engine/trace_file.hpp"
#include "framework/perfetto/compact_sched.hpp"
#include "framework/perfetto/ftrace_schema.hpp"
#include "framework/perfetto/proto_writer.hpp"

namespace ringscope::perfetto {

const std::string& SymbolInterner::name(const Event& ev, uint64_t addr) {
    auto [it, added] = names.try_emplace(addr);
    if (added) {
        if (auto s = ev.context().resolvers().lookup(kKernelDomain, addr))
            it->second = ResolverService::format(*s, addr);
        if (it->second.empty()) {
            char buf[24];
            std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(addr));
            it->second = buf;
        }
    }
    return it->second;
}

uint64_t SymbolInterner::intern(const Event& ev, uint64_t addr) {
    auto [it, added] = ids.try_emplace(addr, ids.size() + 1);  // iid 0 means "not set"
    if (added) pending.emplace_back(it->second, name(ev, addr));
    return it->second;
}

std::vector<std::string> function_fields(std::string_view fmt) {
    // The quoted format, then the arguments separated by top-level commas.
    std::vector<std::string> out;
    size_t q = fmt.find('"');
    if (q == std::string_view::npos) return out;
    size_t end = q + 1;
    while (end < fmt.size() && fmt[end] != '"') end += fmt[end] == '\\' ? 2 : 1;
    if (end >= fmt.size()) return out;
    std::vector<bool> is_function;  // per conversion
    const std::string_view text = fmt.substr(q + 1, end - q - 1);
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') continue;
        if (i + 1 < text.size() && text[i + 1] == '%') {
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < text.size() && std::strchr("-+ #0123456789.*lhzjt", text[j])) ++j;
        if (j >= text.size()) break;
        const bool fn = text[j] == 'p' && j + 1 < text.size() && std::strchr("sSfFB", text[j + 1]);
        is_function.push_back(fn);
        i = fn ? j + 1 : j;
    }
    std::vector<std::string_view> args;
    int depth = 0;
    size_t start = end + 1;
    for (size_t i = end + 1; i <= fmt.size(); ++i) {
        const char c = i < fmt.size() ? fmt[i] : ',';
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c == ',' && depth == 0) {
            if (i > start) args.push_back(fmt.substr(start, i - start));
            start = i + 1;
        }
    }
    for (size_t k = 0; k < is_function.size() && k < args.size(); ++k) {
        if (!is_function[k]) continue;
        std::string_view a = args[k];
        const size_t r = a.find("REC->");
        if (r == std::string_view::npos) continue;
        size_t e = r + 5;
        while (e < a.size() && (std::isalnum(static_cast<unsigned char>(a[e])) || a[e] == '_')) ++e;
        std::string_view rest = a.substr(e);
        while (!rest.empty() && (rest.front() == ' ' || rest.front() == ')')) rest.remove_prefix(1);
        if (rest.empty()) out.emplace_back(a.substr(r + 5, e - r - 5));  // the field itself, no arithmetic
    }
    return out;
}

namespace {

// text: the event's formatted text after "IP: " (what report prints), for bprint.
enum class OpKind : uint8_t { string, sint, uint, ksym, array, text };

// A generic integer field's bytes before its value, made once per field: Field's key, its length
// (one byte, completed per value), the encoded name and the value's key. Written as one block of
// kMax bytes (then cut to `size`), so a field is a copy and a varint, not four appends.
struct FieldHead {
    static constexpr size_t kMax = 32;
    char bytes[kMax] = {};
    uint8_t size = 0;       // 0: the name is too long for this, the field is written piece by piece
    uint8_t fixed_len = 0;  // Field's length without the value's varint
};

// One field of the event and how it is written.
struct Op {
    OpKind kind = OpKind::uint;
    FieldHandle h;
    uint32_t number = 0;     // typed: the message's field number
    bool to_end = false;     // "char buf[]" of size 0: the bytes up to the end of the record
    std::string name;        // generic: the field's name
    std::string prefix;      // generic: its GenericFtraceEvent.Field.name, encoded
    uint32_t elem_size = 0;  // arrays
    bool elem_signed = false;
    std::string symbol_prefix;  // generic, a kernel function: "NAME_symbol"'s name, encoded
    FieldHead head;             // generic integers
    // Generic arrays: "name[i]" encoded, per element seen so far (made once, not per event).
    mutable std::vector<std::string> elem_prefixes;
    mutable std::vector<FieldHead> elem_heads;
    void add_elem() const;
};

bool is_char_string(const FieldInfo& f) {
    return (f.flags & kFieldString) && f.type.find("char") != std::string::npos;
}

bool is_scalar(const FieldInfo& f) {
    return !(f.flags & (kFieldArray | kFieldDynamic | kFieldRelLoc)) &&
           (f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8);
}

// Whether the kernel field's every value fits the typed slot unchanged.
bool fits(const FieldInfo& f, ProtoType t) {
    const bool sign = f.is_signed();
    switch (t) {
        case ProtoType::string:
            return is_char_string(f);
        case ProtoType::int32:
            return is_scalar(f) && (sign ? f.size <= 4 : f.size < 4);
        case ProtoType::int64:
            return is_scalar(f) && (sign || f.size < 8);
        case ProtoType::uint32:
            return is_scalar(f) && !sign && f.size <= 4;
        case ProtoType::uint64:
        case ProtoType::ksym:
            return is_scalar(f) && !sign;
    }
    return false;
}

std::string encoded_name(std::string_view name) {
    std::string s;
    put_bytes(s, field::kGenericFieldName, name);
    return s;
}

FieldHead field_head(std::string_view prefix, uint32_t number) {
    FieldHead h;
    const size_t n = prefix.size() + 1;  // and the value's key: one byte, NUMBER is below 16
    if (number >= 16 || n + 2 > FieldHead::kMax || n + 10 >= 0x80) return h;
    h.bytes[0] = static_cast<char>(tag(field::kGenericField, WireType::len));
    std::memcpy(h.bytes + 2, prefix.data(), prefix.size());
    h.bytes[2 + prefix.size()] = static_cast<char>(tag(number, WireType::varint));
    h.size = static_cast<uint8_t>(n + 2);
    h.fixed_len = static_cast<uint8_t>(n);
    return h;
}

void Op::add_elem() const {
    elem_prefixes.push_back(encoded_name(name + "[" + std::to_string(elem_prefixes.size()) + "]"));
    elem_heads.push_back(
        field_head(elem_prefixes.back(), elem_signed ? field::kGenericFieldInt : field::kGenericFieldUint));
}

std::string_view string_value(const Event& ev, const Op& op) {
    if (!op.to_end) return ev.str(op.h);
    auto p = ev.payload();
    if (op.h.offset >= p.size()) return {};
    const char* s = reinterpret_cast<const char*>(p.data() + op.h.offset);
    return {s, strnlen(s, p.size() - op.h.offset)};
}

// Element I of an array of SIZE-byte integers (1, 2, 4 or 8) in the trace's byte order.
uint64_t element(std::span<const uint8_t> b, size_t i, uint32_t size, bool sign, bool swap) {
    const uint8_t* p = b.data() + i * size;
    uint64_t v = 0;
    switch (size) {
        case 1:
            v = p[0];
            break;
        case 2: {
            uint16_t x;
            std::memcpy(&x, p, 2);
            v = swap ? __builtin_bswap16(x) : x;
            break;
        }
        case 4: {
            uint32_t x;
            std::memcpy(&x, p, 4);
            v = swap ? __builtin_bswap32(x) : x;
            break;
        }
        default:
            std::memcpy(&v, p, 8);
            if (swap) v = __builtin_bswap64(v);
            break;
    }
    if (sign && size < 8) {
        const unsigned shift = 64 - 8 * size;
        v = static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
    }
    return v;
}

}  // namespace

// The CompactSched columns of a typed sched_switch or sched_waking.
enum class SchedKind : uint8_t { none, switch_event, waking };

struct EventEncoder::Plan {
    uint32_t oneof = field::kEventGeneric;
    bool generic = true;
    SchedKind sched = SchedKind::none;
    FieldHandle state, pid, prio, comm, target_cpu;  // switch: prev_state, next_pid/prio/comm
    std::string head;                                // generic: event_name, encoded
    std::vector<Op> ops;
    FieldHandle flags;
};

namespace {

// Compact only when every column has its field (a typed plan already fits the slots' types).
void plan_compact(const EventType& type, EventEncoder::Plan& p);

}  // namespace

EventEncoder::EventEncoder(engine::TraceFile* file) : file_(file) {}
EventEncoder::~EventEncoder() = default;

namespace {

// The op that reads field `f` (kind and number set by the plan).
Op field_op(const FieldInfo& f) {
    Op op;
    op.h = FieldHandle{f.offset, f.size, f.flags, true};
    op.to_end = (f.flags & kFieldArray) && f.size == 0;
    op.name = f.name;
    return op;
}

// Typed when every field has a fitting slot of `te`; false (and `p` as it was) otherwise.
bool plan_typed(const EventType& type, const TypedEvent& te, EventEncoder::Plan& p) {
    std::vector<Op> ops;
    for (const auto& f : type.fields) {
        const TypedField* slot_field = nullptr;
        for (const auto& tf : te.fields)
            if (tf.name == f.name) slot_field = &tf;
        const bool to_end = (f.flags & kFieldArray) && f.size == 0 && is_char_string(f);
        if (!slot_field || !(to_end ? slot_field->type == ProtoType::string : fits(f, slot_field->type)))
            return false;
        Op op = field_op(f);
        op.number = slot_field->number;
        switch (slot_field->type) {
            case ProtoType::string:
                op.kind = OpKind::string;
                break;
            case ProtoType::int32:
            case ProtoType::int64:
                op.kind = OpKind::sint;
                break;
            case ProtoType::uint32:
            case ProtoType::uint64:
                op.kind = OpKind::uint;
                break;
            case ProtoType::ksym:
                op.kind = OpKind::ksym;
                break;
        }
        ops.push_back(std::move(op));
    }
    p.generic = false;
    p.oneof = te.oneof_field;
    p.ops = std::move(ops);
    plan_compact(type, p);
    return true;
}

// A GenericFtraceEvent: the event's name, then every field by name (function fields with their
// symbol's name besides).
void plan_generic(const EventType& type, EventEncoder::Plan& p) {
    put_bytes(p.head, field::kGenericEventName, type.name);
    const std::vector<std::string> functions = function_fields(type.print_fmt);
    for (const auto& f : type.fields) {
        Op op = field_op(f);
        op.prefix = encoded_name(f.name);
        if (is_scalar(f) && !f.is_signed() &&
            std::find(functions.begin(), functions.end(), f.name) != functions.end())
            op.symbol_prefix = encoded_name(f.name + "_symbol");
        if (is_char_string(f)) {
            op.kind = OpKind::string;
        } else if (is_scalar(f)) {
            op.kind = f.is_signed() ? OpKind::sint : OpKind::uint;
            op.head =
                field_head(op.prefix, f.is_signed() ? field::kGenericFieldInt : field::kGenericFieldUint);
        } else {
            // Other arrays: one field per element, "name[i]".
            op.kind = OpKind::array;
            op.elem_size = f.elem_size == 1 || f.elem_size == 2 || f.elem_size == 4 || f.elem_size == 8
                               ? f.elem_size
                               : 1;
            op.elem_signed = f.is_signed();
        }
        p.ops.push_back(std::move(op));
    }
}

}  // namespace

const EventEncoder::Plan& EventEncoder::make_plan(const EventType& type) {
    Recent& recent = recent_[type.id % kRecent];
    auto& slot = plans_[&type];
    if (!slot) {
        auto p = std::make_unique<Plan>();
        p->flags = type.handle("common_flags");
        // trace_printk: Perfetto's print event, with the text report prints (the binary arguments
        // formatted by the trace's own printk formats) and the caller's address.
        if (file_ && type.system == "ftrace" && type.name == "bprint" && type.handle("ip")) {
            if (!printer_)
                printer_ = std::make_unique<engine::PrintDispatch>(*file_, std::span<EventHandler* const>{});
            Op ip = field_op(*type.find_field("ip"));
            ip.kind = OpKind::uint;
            ip.number = 1;
            Op text;
            text.kind = OpKind::text;
            text.number = 2;
            p->ops = {ip, text};
            p->generic = false;
            p->oneof = find_typed_event("ftrace", "print")->oneof_field;
        }
        if (const TypedEvent* te = p->generic ? find_typed_event(type.system, type.name) : nullptr)
            plan_typed(type, *te, *p);
        if (p->generic) plan_generic(type, *p);
        slot = std::move(p);
    }
    recent = {&type, slot.get()};
    return *slot;
}

namespace {

void plan_compact(const EventType& type, EventEncoder::Plan& p) {
    if (type.system != "sched") return;
    const bool is_switch = type.name == "sched_switch";
    if (!is_switch && type.name != "sched_waking") return;
    p.state = is_switch ? type.handle("prev_state") : FieldHandle{};
    p.pid = type.handle(is_switch ? "next_pid" : "pid");
    p.prio = type.handle(is_switch ? "next_prio" : "prio");
    p.comm = type.handle(is_switch ? "next_comm" : "comm");
    p.target_cpu = is_switch ? FieldHandle{} : type.handle("target_cpu");
    const bool all = p.pid && p.prio && p.comm && (is_switch ? bool(p.state) : bool(p.target_cpu));
    if (all) p.sched = is_switch ? SchedKind::switch_event : SchedKind::waking;
}

}  // namespace

bool EventEncoder::encode_compact(const Event& ev, CompactSched& compact) {
    const Plan& p = plan(ev.type());
    if (p.sched == SchedKind::none) return false;
    const auto i32 = [&](const FieldHandle& h) { return static_cast<int32_t>(ev.i64(h)); };
    if (p.sched == SchedKind::switch_event) {
        compact.add_switch(ev.timestamp(), ev.i64(p.state), i32(p.pid), i32(p.prio), ev.str(p.comm));
    } else {
        const uint32_t flags = p.flags ? static_cast<uint32_t>(ev.u64(p.flags)) : 0;
        compact.add_waking(ev.timestamp(), i32(p.pid), i32(p.target_cpu), i32(p.prio), ev.str(p.comm), flags);
    }
    return true;
}

namespace {

// A typed event's fields, in the slots of its own message.
void encode_typed(const Event& ev, const EventEncoder::Plan& p, SymbolInterner& symbols,
                  engine::PrintDispatch* printer, TextBuffer& text, Bytes& out) {
    for (const Op& op : p.ops) {
        switch (op.kind) {
            case OpKind::string:
                put_bytes(out, op.number, string_value(ev, op));
                break;
            case OpKind::sint:
                put_int(out, op.number, ev.i64(op.h));
                break;
            case OpKind::uint:
                put_uint(out, op.number, ev.u64(op.h));
                break;
            case OpKind::ksym:
                put_uint(out, op.number, symbols.intern(ev, ev.u64(op.h)));
                break;
            case OpKind::text: {
                text.clear();
                printer->print_info(ev, text);
                std::string_view t = text.view();
                if (size_t colon = t.find(": "); colon != std::string_view::npos) t.remove_prefix(colon + 2);
                put_bytes(out, op.number, t);
                break;
            }
            case OpKind::array:
                break;
        }
    }
}

// A GenericFtraceEvent.Field: its name (encoded once per type), then one value.
void put_uint_field(Bytes& out, const FieldHead& head, std::string_view prefix, uint32_t number, uint64_t v) {
    if (head.size) [[likely]] {
        char* w = out.room(FieldHead::kMax + 10);
        std::memcpy(w, head.bytes, FieldHead::kMax);
        w[1] = static_cast<char>(head.fixed_len + varint_size(v));
        out.set_end(write_varint(w + head.size, v));
        return;
    }
    char* w = out.room(prefix.size() + 32);
    w = write_varint(w, tag(field::kGenericField, WireType::len));
    w = write_varint(w, prefix.size() + uint_field_size(number, v));
    std::memcpy(w, prefix.data(), prefix.size());
    w = write_varint(w + prefix.size(), tag(number, WireType::varint));
    out.set_end(write_varint(w, v));
}

void put_str_field(Bytes& out, std::string_view prefix, std::string_view text) {
    put_varint(out, tag(field::kGenericField, WireType::len));
    put_varint(out, prefix.size() + bytes_field_size(field::kGenericFieldStr, text.size()));
    out.append(prefix);
    put_bytes(out, field::kGenericFieldStr, text);
}

// A generic event's fields, each with its name.
void encode_generic(const Event& ev, const EventEncoder::Plan& p, SymbolInterner& symbols, Bytes& out) {
    out.append(p.head);
    for (const Op& op : p.ops) {
        switch (op.kind) {
            case OpKind::string:
                put_str_field(out, op.prefix, string_value(ev, op));
                break;
            case OpKind::sint:
                put_uint_field(out, op.head, op.prefix, field::kGenericFieldInt,
                               static_cast<uint64_t>(ev.i64(op.h)));
                break;
            case OpKind::uint:
            case OpKind::ksym: {
                const uint64_t v = ev.u64(op.h);
                put_uint_field(out, op.head, op.prefix, field::kGenericFieldUint, v);
                if (!op.symbol_prefix.empty()) put_str_field(out, op.symbol_prefix, symbols.name(ev, v));
                break;
            }
            case OpKind::text:
                break;
            case OpKind::array: {
                std::span<const uint8_t> b = ev.bytes(op.h);
                if (op.to_end) {
                    auto pl = ev.payload();
                    b = op.h.offset < pl.size() ? pl.subspan(op.h.offset) : std::span<const uint8_t>{};
                }
                const bool swap = ev.context().big_endian() != Event::host_big_endian();
                const size_t n = b.size() / op.elem_size;
                const uint32_t number = op.elem_signed ? field::kGenericFieldInt : field::kGenericFieldUint;
                while (op.elem_heads.size() < n) op.add_elem();
                for (size_t i = 0; i < n; ++i)
                    put_uint_field(out, op.elem_heads[i], op.elem_prefixes[i], number,
                                   element(b, i, op.elem_size, op.elem_signed, swap));
                break;
            }
        }
    }
}

}  // namespace

void EventEncoder::encode(const Event& ev, SymbolInterner& symbols, Bytes& out) {
    const Plan& p = plan(ev.type());
    {
        char* w = out.room(40);
        w = write_varint(write_varint(w, tag(field::kEventTimestamp, WireType::varint)), ev.timestamp());
        w = write_varint(write_varint(w, tag(field::kEventPid, WireType::varint)),
                         static_cast<uint32_t>(ev.pid()));
        out.set_end(w);
    }
    if (p.flags)
        if (uint64_t flags = ev.u64(p.flags)) put_uint(out, field::kEventCommonFlags, flags);
    const size_t body = begin_nested(out, p.oneof);
    if (p.generic)
        encode_generic(ev, p, symbols, out);
    else
        encode_typed(ev, p, symbols, printer_.get(), text_, out);
    end_nested(out, body);
}

}  // namespace ringscope::perfetto
