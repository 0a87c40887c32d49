#include "function_printer.hpp"

#include <algorithm>

#include <ringscope/resolver.hpp>

#include "field_value.hpp"
#include "function_args.hpp"

namespace ringscope::function {
namespace {

// One long of the trace (its long size and byte order) at `off`; a word cut short by the end of
// the record reads the bytes that are there (libtraceevent would read past the record).
uint64_t read_long(const Event& ev, uint32_t off, uint32_t long_size) {
    const uint32_t left = static_cast<uint32_t>(ev.payload().size()) - off;
    uint32_t n = long_size;
    if (n > left) n = left >= 4 ? 4 : left >= 2 ? 2 : 1;
    return ev.u64(FieldHandle{off, n, 0, true});
}

// The TEP_PRINT_TIME rendering of tep_func_repeat_format "%6.1000d" in libtraceevent 1.7.1:
// microseconds (rounded) as seconds with six decimals, small values included ("    0.000004").
void print_time(uint64_t ts, TextBuffer& out) {
    const uint64_t usecs = (ts + 500) / 1000;
    out.appendf("%5llu.%06llu", static_cast<unsigned long long>(usecs / 1000000),
                static_cast<unsigned long long>(usecs % 1000000));
}

}  // namespace

const FunctionPrinter::Fields& FunctionPrinter::fields(const Event& ev) {
    auto it = fields_.find(ev.type_ptr());
    if (it != fields_.end()) return it->second;
    const EventType& t = ev.type();
    Fields f{};
    const std::string_view n = t.name;
    f.kind = n == "function"       ? Kind::kFunction
             : n == "func_repeats" ? Kind::kRepeats
             : n == "kernel_stack" ? Kind::kStack
                                   : Kind::kRawData;
    f.ip = own_field(t, "ip");
    f.parent_ip = own_field(t, "parent_ip");
    f.count = own_field(t, "count");
    f.top_delta = own_field(t, "top_delta_ts");
    f.bottom_delta = own_field(t, "bottom_delta_ts");
    f.id = own_field(t, "id");
    f.args = own_field(t, "args");
    f.caller = t.handle("caller");
    f.buf = t.handle("buf");
    return fields_.emplace(&t, f).first->second;
}

bool FunctionPrinter::print(const Event& ev, PrintContext& pc, TextBuffer& out) {
    const Fields& f = fields(ev);
    switch (f.kind) {
        case Kind::kFunction:
            if (!print_function(ev, f, out)) pc.print_default(ev, out);
            break;
        case Kind::kRepeats:
            print_repeats(ev, f, pc, out);
            break;
        case Kind::kStack:
            print_stack(ev, f, out);
            break;
        case Kind::kRawData:
            print_raw_data(ev, f, pc, out);
            break;
    }
    return true;
}

bool FunctionPrinter::print_function(const Event& ev, const Fields& f, TextBuffer& out) {
    const ResolverService& rs = ev.context().resolvers();
    uint64_t ip = 0, parent_ip = 0;
    if (!get_field_val(ev, f.ip, "ip", ip, out)) {
        out.push_back('!');
        return false;
    }
    const auto func = rs.lookup(kKernelDomain, ip);
    if (!get_field_val(ev, f.parent_ip, "parent_ip", parent_ip, out)) {
        out.push_back('!');
        return false;
    }
    const auto parent = rs.lookup(kKernelDomain, parent_ip);
    int depth = 0;
    if (parent && on(options_.indent))
        depth = indent_.depth(parent->name, func ? func->name : std::string_view(), ev.cpu());
    out.append_repeat(' ', static_cast<size_t>(depth) * 3);
    // "+0x%x " (an int, trailing blank included) after a resolved symbol only.
    auto name_at = [&](const std::optional<Symbol>& sym, uint64_t addr) {
        if (!sym) {
            out.appendf("0x%llx", static_cast<unsigned long long>(addr));
            return;
        }
        out.append(sym->name);
        if (on(options_.offset)) out.appendf("+0x%x ", static_cast<unsigned>(addr - sym->start));
    };
    name_at(func, ip);
    if (func && prints_as_3_4(options_.compat, options_.release)) {
        TextBuffer args;
        if (print_function_args(ev, f.args, func->name, args)) {
            out.push_back('(');
            out.append(args.view());
            out.push_back(')');
        }
    }
    if (on(options_.parent)) {
        out.append(" <-- ");
        name_at(parent, parent_ip);
    }
    return true;
}

void FunctionPrinter::print_repeats(const Event& ev, const Fields& f, PrintContext& pc, TextBuffer& out) {
    // The plugin prints the function part whatever it returned, then reads the counters.
    print_function(ev, f, out);
    uint64_t count = 0, top = 0, bottom = 0;
    if (!get_field_val(ev, f.count, "count", count, out) ||
        !get_field_val(ev, f.top_delta, "top_delta_ts", top, out) ||
        !get_field_val(ev, f.bottom_delta, "bottom_delta_ts", bottom, out)) {
        out.push_back('!');
        pc.print_default(ev, out);
        return;
    }
    out.appendf(" (count: %lld  last_ts: ", static_cast<long long>(count));
    print_time(ev.timestamp() - ((top << 32) | bottom), out);
    out.push_back(')');
}

void FunctionPrinter::print_stack(const Event& ev, const Fields& f, TextBuffer& out) {
    if (!f.caller) {
        out.append("<CANT FIND FIELD caller>");
        return;
    }
    out.append("<stack trace >\n");
    const ResolverService& rs = ev.context().resolvers();
    const uint32_t long_size = ev.context().long_size() == 4 ? 4 : 8;
    const uint32_t end = static_cast<uint32_t>(ev.payload().size());
    for (uint32_t off = f.caller.offset; off < end; off += long_size) {
        const uint64_t addr = read_long(ev, off, long_size);
        // The end marker: -1 as a long, or -1 in the low 32 bits.
        if ((long_size == 8 && addr == ~uint64_t{0}) || static_cast<int>(addr) == -1) break;
        if (auto sym = rs.lookup(kKernelDomain, addr)) {
            out.append("=> ");
            out.append(sym->name);
            out.appendf(" (%llx)\n", static_cast<unsigned long long>(addr));
        } else {
            out.appendf("=> %llx\n", static_cast<unsigned long long>(addr));
        }
    }
}

void FunctionPrinter::print_raw_data(const Event& ev, const Fields& f, PrintContext& pc, TextBuffer& out) {
    uint64_t id = 0;
    if (!get_field_val(ev, f.id, "id", id, out)) {
        out.push_back('!');
        pc.print_default(ev, out);
        return;
    }
    out.appendf("# %llx", static_cast<unsigned long long>(id));
    if (!f.buf) {
        out.append("<CANT FIND FIELD buf>");
        return;
    }
    // Steps of the trace's long size, each printing up to sizeof(long) (8) bytes: with 4-byte longs
    // the bytes overlap, as in the plugin.
    const auto bytes = ev.payload();
    const uint32_t step = ev.context().long_size() == 4 ? 4 : 8;
    for (size_t off = f.buf.offset; off < bytes.size(); off += step) {
        const size_t n = std::min<size_t>(8, bytes.size() - off);
        for (size_t i = 0; i < n; ++i) out.appendf(" %02x", bytes[off + i]);
    }
}

}  // namespace ringscope::function
