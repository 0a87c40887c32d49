#include "mac80211_printer.hpp"

namespace ringscope::mac80211 {
namespace {

// The settings in the plugin's order; hex ones print as %#x.
struct Setting {
    std::string_view name;
    bool hex;
};
constexpr Setting kSettings[Mac80211Printer::kFlagCount] = {{"assoc", false},
                                                            {"aid", false},
                                                            {"cts", false},
                                                            {"shortpre", false},
                                                            {"shortslot", false},
                                                            {"dtimper", false},
                                                            {"bcnint", false},
                                                            {"assoc_cap", true},
                                                            {"basic_rates", true},
                                                            {"enable_beacon", false},
                                                            {"ht_operation_mode", false}};

constexpr int kIndent = 65;

FieldHandle own_field(const EventType& t, std::string_view name) {
    for (const auto& f : t.fields)
        if (f.name == name) return FieldHandle{f.offset, f.size, f.flags, true};
    return {};
}

bool readable(const FieldHandle& h) {
    return h && (h.size == 1 || h.size == 2 || h.size == 4 || h.size == 8);
}

// The plugin's print_string: a char array or __data_loc string, up to its length or a NUL.
void print_string(const Event& ev, const FieldHandle& h, std::string_view name, TextBuffer& out) {
    if (!h) {
        out.append("NOTFOUND:");
        out.append(name);
        return;
    }
    out.append(ev.str(h));
}

// tep_print_num_field(s, "NAME:%d" / "NAME:%#x", ..., err = 0): nothing when the field is missing.
void setting(const Event& ev, const FieldHandle& h, const Setting& s, TextBuffer& out) {
    if (!readable(h)) return;
    out.append(s.name);
    const auto v = static_cast<unsigned>(ev.u64(h));  // printf takes the low 32 bits for %d / %x
    if (s.hex)
        out.appendf(":%#x", v);
    else
        out.appendf(":%d", static_cast<int>(v));
}

void new_line(TextBuffer& out) {
    out.push_back('\n');
    out.append_repeat(' ', kIndent);
}

}  // namespace

const Mac80211Printer::Fields& Mac80211Printer::fields(const EventType& t) {
    auto it = fields_.find(&t);
    if (it != fields_.end()) return it->second;
    Fields f{own_field(t, "wiphy_name"), own_field(t, "vif_name"), own_field(t, "vif_type"), {}};
    for (size_t i = 0; i < kFlagCount; ++i) f.flags[i] = own_field(t, kSettings[i].name);
    return fields_.emplace(&t, f).first->second;
}

bool Mac80211Printer::print(const Event& ev, PrintContext&, TextBuffer& out) {
    const Fields& f = fields(ev.type());
    print_string(ev, f.wiphy, "wiphy_name", out);
    out.append(" vif:");
    print_string(ev, f.vif_name, "vif_name", out);
    if (readable(f.vif_type))
        out.appendf("(%d)", static_cast<int>(ev.u64(f.vif_type)));
    else
        out.append("CAN'T FIND FIELD \"vif_type\"");
    // Line 2: assoc .. dtimper, each followed by a blank; line 3: bcnint .. enable_beacon.
    new_line(out);
    for (size_t i = 0; i < 6; ++i) {
        setting(ev, f.flags[i], kSettings[i], out);
        out.push_back(' ');
    }
    new_line(out);
    for (size_t i = 6; i < 10; ++i) {
        setting(ev, f.flags[i], kSettings[i], out);
        if (i < 9) out.push_back(' ');
    }
    new_line(out);
    setting(ev, f.flags[10], kSettings[10], out);
    return true;
}

}  // namespace ringscope::mac80211
