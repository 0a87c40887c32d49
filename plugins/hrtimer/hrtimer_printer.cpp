#include "hrtimer_printer.hpp"

#include <ringscope/resolver.hpp>

namespace ringscope::hrtimer {
namespace {

FieldHandle own_field(const EventType& t, std::string_view name) {
    for (const auto& f : t.fields)
        if (f.name == name) return FieldHandle{f.offset, f.size, f.flags, true};
    return {};
}

// tep_read_number_field: unsigned, and only 1/2/4/8-byte fields.
bool read_number(const Event& ev, const FieldHandle& h, uint64_t& val) {
    if (!h || (h.size != 1 && h.size != 2 && h.size != 4 && h.size != 8)) return false;
    val = ev.u64(h);
    return true;
}

// tep_print_num_field(s, "0x%llx" or "%llu", ...): false (and, with err, the complaint) on failure.
bool print_num(const Event& ev, const FieldHandle& h, std::string_view name, bool hex, bool err,
               TextBuffer& out) {
    uint64_t val = 0;
    if (!read_number(ev, h, val)) {
        if (err) out.appendf("CAN'T FIND FIELD \"%.*s\"", static_cast<int>(name.size()), name.data());
        return false;
    }
    out.appendf(hex ? "0x%llx" : "%llu", static_cast<unsigned long long>(val));
    return true;
}

// tep_print_func_field(s, " function=%s", ..., err = 0).
void print_func(const Event& ev, const FieldHandle& h, TextBuffer& out) {
    uint64_t val = 0;
    if (!read_number(ev, h, val)) return;
    out.append(" function=");
    if (auto sym = ev.context().resolvers().lookup(kKernelDomain, val)) {
        out.append(sym->name);
        out.appendf("/0x%llx", static_cast<unsigned long long>(sym->start - val));
    } else {
        out.appendf("0x%08llx", static_cast<unsigned long long>(val));
    }
}

void print_timer(const Event& ev, const FieldHandle& timer, const FieldHandle& hrtimer, TextBuffer& out) {
    out.append("hrtimer=");
    // Older kernels call the field "timer", newer ones "hrtimer".
    if (!print_num(ev, timer, "timer", true, false, out)) print_num(ev, hrtimer, "hrtimer", true, true, out);
}

}  // namespace

const HrtimerPrinter::Fields& HrtimerPrinter::fields(const EventType& t) {
    auto it = fields_.find(&t);
    if (it != fields_.end()) return it->second;
    Fields f{own_field(t, "timer"),    own_field(t, "hrtimer"), own_field(t, "now"),
             own_field(t, "function"), own_field(t, "expires"), own_field(t, "softexpires")};
    return fields_.emplace(&t, f).first->second;
}

bool HrtimerPrinter::print(const Event& ev, PrintContext&, TextBuffer& out) {
    const Fields& f = fields(ev.type());
    print_timer(ev, f.timer, f.hrtimer, out);
    if (ev.name() == "hrtimer_expire_entry") {
        out.append(" now=");
        print_num(ev, f.now, "now", false, true, out);
        print_func(ev, f.function, out);
    } else {
        print_func(ev, f.function, out);
        out.append(" expires=");
        print_num(ev, f.expires, "expires", false, true, out);
        out.append(" softexpires=");
        print_num(ev, f.softexpires, "softexpires", false, true, out);
    }
    return true;
}

}  // namespace ringscope::hrtimer
