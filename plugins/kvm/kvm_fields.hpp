// Field access with libtraceevent's semantics, which the reference plugin's output depends on:
// only the event's own fields count (tep_find_field skips common fields), numbers must be 1, 2, 4
// or 8 bytes and read unsigned, and a failed read leaves a marker in the output.
#pragma once

#include <cstdint>
#include <string_view>

#include <ringscope/event.hpp>
#include <ringscope/event_type.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope::kvm {

struct NumField {
    std::string_view name;  // a literal: lives forever
    FieldHandle h;

    static NumField find(const EventType& type, std::string_view name) noexcept {
        NumField f{name, {}};
        for (const FieldInfo& fi : type.fields)
            if (fi.name == name) {
                f.h = FieldHandle{fi.offset, fi.size, fi.flags, true};
                break;
            }
        return f;
    }
    bool readable() const noexcept {
        return h.found && (h.size == 1 || h.size == 2 || h.size == 4 || h.size == 8);
    }

    // tep_get_field_val(): false when absent or not a number; with `err` the reference's marker.
    bool get(const Event& ev, uint64_t& v, TextBuffer* err) const {
        if (!h.found) {
            if (err) {
                err->append("<CANT FIND FIELD ");
                err->append(name);
                err->push_back('>');
            }
            return false;
        }
        if (!readable()) {
            if (err) {
                err->push_back(' ');
                err->append(name);
                err->append("=INVALID");
            }
            return false;
        }
        v = ev.u64(h);
        return true;
    }
};

// tep_print_num_field(s, fmt, ...) with err=1, for the one-conversion formats the plugin uses.
inline void print_num_field(const Event& ev, const NumField& f, const char* fmt, TextBuffer& out) {
    if (!f.readable()) {
        out.append("CAN'T FIND FIELD \"");
        out.append(f.name);
        out.push_back('"');
        return;
    }
    out.appendf(fmt, static_cast<unsigned long long>(ev.u64(f.h)));
}

}  // namespace ringscope::kvm
