#include "fgraph_printer.hpp"

#include <optional>
#include <string>

#include <ringscope/resolver.hpp>

#include "fgraph_columns.hpp"
#include "field_value.hpp"
#include "function_args.hpp"

namespace ringscope::function {
namespace {

std::optional<Symbol> find_function(const Event& ev, uint64_t addr) {
    return ev.context().resolvers().lookup(kKernelDomain, addr);
}

// The function's name, or its address in hex without "0x" (trace-cmd's "%llx").
void print_function(const std::optional<Symbol>& sym, uint64_t addr, TextBuffer& out) {
    if (sym)
        out.append(sym->name);
    else
        out.appendf("%llx", static_cast<unsigned long long>(addr));
}

void print_depth(uint64_t depth, TextBuffer& out) {
    out.appendf(" (%lld)", static_cast<long long>(depth));
}

}  // namespace

const FgraphPrinter::Fields& FgraphPrinter::fields(const Event& ev) {
    auto it = fields_.find(ev.type_ptr());
    if (it != fields_.end()) return it->second;
    const EventType& t = ev.type();
    Fields f;
    f.exit = t.name == "funcgraph_exit";
    f.retaddr_event = t.name == "fgraph_retaddr_entry";
    f.func = own_field(t, "func");
    f.depth = own_field(t, "depth");
    f.calltime = own_field(t, "calltime");
    f.rettime = own_field(t, "rettime");
    f.retval = own_field(t, "retval");
    f.retaddr = own_field(t, "retaddr");
    f.args = own_field(t, "args");
    return fields_.emplace(&t, f).first->second;
}

const EventType* FgraphPrinter::exit_type(const Event& ev) {
    const TraceContext* ctx = &ev.context();
    auto it = exit_types_.find(ctx);
    if (it == exit_types_.end())
        it = exit_types_.emplace(ctx, ctx->find_type("ftrace", "funcgraph_exit")).first;
    return it->second;
}

bool FgraphPrinter::print(const Event& ev, PrintContext& pc, TextBuffer& out) {
    const Fields& f = fields(ev);
    if (f.retaddr_event && !v34()) return false;  // trace-cmd 3.1 has no handler for it
    // Without a funcgraph_exit format the entry handler fails before printing: the print fmt.
    if (!f.exit && !exit_type(ev)) return false;
    // A handler that gives up at its first fields returns non-zero: libtraceevent then appends
    // the event's print fmt to the complaint.
    if (f.exit ? print_exit(ev, f, out) : print_entry(ev, f, pc, out)) pc.print_default(ev, out);
    return true;
}

bool FgraphPrinter::print_entry(const Event& ev, const Fields& f, PrintContext& pc, TextBuffer& out) {
    const EventType* exit = exit_type(ev);
    uint64_t pid = 0, func = 0;
    if (!get_field_val(ev, ev.type().pid_field, "common_pid", pid, out) ||
        !get_field_val(ev, f.func, "func", func, out)) {
        out.push_back('!');
        return true;
    }
    std::optional<Event> next = pc.peek_next();
    // 3.3 and later merge only when the next record is on the same CPU.
    if (next && v34() && next->cpu() != ev.cpu()) next.reset();
    if (next && next->type_ptr() == exit) {
        const Fields& xf = fields(*next);
        uint64_t next_pid = 0, next_func = 0;
        // trace-cmd compares its int pid, sign-extended, with the exit's zero-extended one.
        const uint64_t cur_pid = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(pid)));
        if (get_field_val(*next, exit->pid_field, "common_pid", next_pid, out) && next_pid == cur_pid &&
            get_field_val(*next, xf.func, "func", next_func, out) && next_func == func) {
            pc.take_next();
            print_leaf(ev, f, *next, out);
            return false;
        }
    }
    print_nested(ev, f, out);
    return false;
}

std::string FgraphPrinter::caller_comment(const Event& ev, const Fields& f) const {
    uint64_t addr = 0;
    TextBuffer quiet;
    if (!get_field_val(ev, f.retaddr, "retaddr", addr, quiet, false)) return {};
    const auto sym = find_function(ev, addr);
    if (!sym) return {};
    char off[16];
    __builtin_snprintf(off, sizeof off, "%x", static_cast<unsigned>(addr - sym->start));
    return " /* <-" + std::string(sym->name) + "+0x" + off + " */";
}

bool FgraphPrinter::read_exit(const Event& exit, const Fields& xf, uint64_t& duration, uint64_t& retval,
                              TextBuffer& out) const {
    uint64_t rettime = 0, calltime = 0;
    if (!get_field_val(exit, xf.rettime, "rettime", rettime, out) ||
        !get_field_val(exit, xf.calltime, "calltime", calltime, out) ||
        (v34() && xf.retval && !get_field_val(exit, xf.retval, "retval", retval, out))) {
        out.push_back('!');
        return false;
    }
    duration = rettime - calltime;
    return true;
}

bool FgraphPrinter::print_columns(const Event& ev, const Fields& f, uint64_t duration, uint64_t& depth,
                                  TextBuffer& out) const {
    print_overhead(duration, out);
    if (duration == kNoDuration)
        out.append("           |  ");
    else
        print_duration(duration, out);
    if (!get_field_val(ev, f.depth, "depth", depth, out)) {
        out.push_back('!');
        return false;
    }
    print_indent(depth, out);
    return true;
}

void FgraphPrinter::print_leaf(const Event& ev, const Fields& f, const Event& exit, TextBuffer& out) {
    const Fields& xf = fields(exit);
    uint64_t duration = 0, retval = 0, depth = 0, func = 0;
    if (!read_exit(exit, xf, duration, retval, out)) return;
    const std::string caller = v34() ? caller_comment(ev, f) : std::string();
    if (!print_columns(ev, f, duration, depth, out)) return;
    if (!get_field_val(ev, f.func, "func", func, out)) {
        out.push_back('!');
        return;
    }
    const auto sym = find_function(ev, func);
    print_function(sym, func, out);
    out.push_back('(');
    if (v34() && sym) print_function_args(ev, f.args, sym->name, out);
    out.append(");");
    if (on(options_.depth)) print_depth(depth, out);
    out.append(caller);
    if (v34() && xf.retval) print_retval(retval, out);
}

void FgraphPrinter::print_nested(const Event& ev, const Fields& f, TextBuffer& out) {
    uint64_t depth = 0, func = 0;
    if (!print_columns(ev, f, kNoDuration, depth, out)) return;
    const std::string caller = v34() ? caller_comment(ev, f) : std::string();
    if (!get_field_val(ev, f.func, "func", func, out)) {
        out.push_back('!');
        return;
    }
    const auto sym = find_function(ev, func);
    if (!v34()) {
        print_function(sym, func, out);
        out.append("() {");
    } else if (sym) {
        out.append(sym->name);
        out.append("(");
        print_function_args(ev, f.args, sym->name, out);
        out.append(caller.empty() ? ")" : ")" + caller);
        out.append(" {");
    } else if (!caller.empty()) {
        print_function(sym, func, out);
        out.append("()" + caller + " {");
    } else {
        out.append(") {");  // sic: 3.3 and 3.4 leave out an unresolved function here
    }
    if (on(options_.depth)) print_depth(depth, out);
}

bool FgraphPrinter::print_exit(const Event& ev, const Fields& f, TextBuffer& out) {
    uint64_t duration = 0, retval = 0, depth = 0, func = 0;
    if (!read_exit(ev, f, duration, retval, out) || !print_columns(ev, f, duration, depth, out)) return true;
    out.push_back('}');
    if (on(options_.tailprint)) {
        // A function that does not read or resolve ends the line here (no depth, no retval).
        if (!get_field_val(ev, f.func, "func", func, out, false)) return false;
        const auto sym = find_function(ev, func);
        if (!sym) return false;
        out.append(" /* ");
        out.append(sym->name);
        out.append(" */");
    }
    if (on(options_.depth)) print_depth(depth, out);
    if (v34() && f.retval) print_retval(retval, out);
    return false;
}

void FgraphPrinter::print_retval(uint64_t retval, TextBuffer& out) const {
    if (on(options_.retval_skip)) return;
    // Error codes (the last 4095 values) in decimal, the rest in hex.
    const bool dec = on(options_.retval_dec) || (!on(options_.retval_hex) && retval >= ~uint64_t{4094});
    if (dec)
        out.appendf(" (ret=%lld)", static_cast<long long>(retval));
    else
        out.appendf(" (ret=0x%llx)", static_cast<unsigned long long>(retval));
}

}  // namespace ringscope::function
