#include "field_value.hpp"

namespace ringscope::function {

FieldHandle own_field(const EventType& t, std::string_view name) {
    for (const auto& f : t.fields)
        if (f.name == name) return FieldHandle{f.offset, f.size, f.flags, true};
    return {};
}

bool get_field_val(const Event& ev, const FieldHandle& h, std::string_view name, uint64_t& val,
                   TextBuffer& out, bool complain) {
    if (!h) {
        if (complain) {
            out.append("<CANT FIND FIELD ");
            out.append(name);
            out.push_back('>');
        }
        return false;
    }
    if (h.size != 1 && h.size != 2 && h.size != 4 && h.size != 8) {
        if (complain) {
            out.push_back(' ');
            out.append(name);
            out.append("=INVALID");
        }
        return false;
    }
    val = ev.u64(h);
    return true;
}

}  // namespace ringscope::function
