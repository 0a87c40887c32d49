#include "tlb_printer.hpp"

#include <array>

namespace ringscope::tlb {
namespace {

FieldHandle own_field(const EventType& t, std::string_view name) {
    for (const auto& f : t.fields)
        if (f.name == name) return FieldHandle{f.offset, f.size, f.flags, true};
    return {};
}

bool readable(const FieldHandle& h) {
    return h && (h.size == 1 || h.size == 2 || h.size == 4 || h.size == 8);
}

// The plugin's table (enum tlb_flush_reason as of 2015), for formats without their own.
constexpr std::array<std::string_view, 4> kBuiltinReasons = {"flush on task switch", "remote shootdown",
                                                             "local shootdown", "local mm shootdown"};

}  // namespace

const TlbPrinter::Fields& TlbPrinter::fields(const EventType& t) {
    auto it = fields_.find(&t);
    if (it != fields_.end()) return it->second;
    Fields f{own_field(t, "pages"), own_field(t, "reason"), t.table_for("reason", false)};
    if (f.reasons && f.reasons->entries.empty()) f.reasons = nullptr;
    return fields_.emplace(&t, f).first->second;
}

bool TlbPrinter::print(const Event& ev, PrintContext& pc, TextBuffer& out) {
    const Fields& f = fields(ev.type());
    out.append("pages=");
    // tep_print_num_field(s, "%ld", ...): the unsigned value read, printed as a signed long.
    if (readable(f.pages))
        out.appendf("%ld", static_cast<long>(ev.u64(f.pages)));
    else
        out.append("CAN'T FIND FIELD \"pages\"");
    if (!f.reason) {
        // tep_get_field_val's complaint; the handler then fails and the default print follows.
        out.append("<CANT FIND FIELD reason>");
        pc.print_default(ev, out);
        return true;
    }
    if (!readable(f.reason)) {
        out.append(" reason=INVALID");
        pc.print_default(ev, out);
        return true;
    }
    const uint64_t val = ev.u64(f.reason);
    out.append(" reason=");
    if (f.reasons) {
        for (const auto& [value, name] : f.reasons->entries) {
            if (value == val) {
                out.append(name);
                break;
            }
        }
    } else if (val < kBuiltinReasons.size()) {
        out.append(kBuiltinReasons[val]);
    }
    out.appendf(" (%lld)", static_cast<long long>(val));
    return true;
}

}  // namespace ringscope::tlb
