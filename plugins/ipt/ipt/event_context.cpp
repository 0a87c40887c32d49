#include "ipt/event_context.hpp"

namespace ringscope::ipt {

FieldInfo make_field(const FieldSpec& s) {
    FieldInfo f;
    f.name = s.name;
    f.type = s.type;
    f.offset = s.offset;
    f.size = s.size;
    f.elem_size = (s.flags & kFieldDynamic) ? 1 : s.size;
    f.flags = s.flags;
    return f;
}

std::vector<std::unique_ptr<EventType>> make_event_types(const std::vector<EventDef>& defs) {
    // Every event starts with the byte offset in the trace it comes from.
    constexpr FieldSpec kOffset{"offset", "u64", 0, 8, 0};
    std::vector<std::unique_ptr<EventType>> types;
    uint32_t id = 1;
    for (const auto& d : defs) {
        auto t = std::make_unique<EventType>();
        t->id = id++;
        t->system = "ipt";
        t->name = d.name;
        t->fields.push_back(make_field(kOffset));
        for (const auto& f : d.fields) t->fields.push_back(make_field(f));
        t->print_fmt = d.fmt;
        t->finalize();
        types.push_back(std::move(t));
    }
    return types;
}

}  // namespace ringscope::ipt
