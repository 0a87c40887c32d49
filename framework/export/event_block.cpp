#include "framework/export/event_block.hpp"

namespace ringscope::exporter {

EventBlock::TypeFields::TypeFields(const EventType& t) {
    for (const FieldInfo& f : t.fields) {
        const FieldHandle h{f.offset, f.size, f.flags, true};
        if (f.is_string()) {
            strs.push_back(h);
            str_names.push_back(f.name);
        } else if ((f.flags & kFieldArray) || f.is_dynamic()) {
            arrays.push_back(h);
            const uint32_t es = f.elem_size;
            array_elem_size.push_back(es == 1 || es == 2 || es == 4 || es == 8 ? static_cast<uint8_t>(es)
                                                                               : 1);
            arr_names.push_back(f.name);
        } else {
            ints.push_back(h);
            int_names.push_back(f.name);
        }
    }
}

const EventBlock::TypeFields& EventBlock::fields_of(const Event& ev) {
    auto it = types_.find(ev.type_ptr());
    if (it == types_.end()) it = types_.emplace(ev.type_ptr(), TypeFields(ev.type())).first;
    return it->second;
}

void EventBlock::add(uint64_t seq, const Event& ev) {
    const TypeFields& t = fields_of(ev);
    file_id_col_.fixed(file_id_);
    seq_.fixed(seq);
    file_col_.string(file_);
    host_col_.string(host_);
    ts_.fixed(ev.timestamp());
    cpu_.fixed(static_cast<uint32_t>(ev.cpu()));
    pid_.fixed(static_cast<int32_t>(ev.pid()));
    comm_.string(ev.comm());
    system_.string(ev.system());
    name_.string(ev.name());

    for (const std::string& n : t.int_names) int_names_.string(n);
    for (const FieldHandle& h : t.ints) ints_.fixed(ev.integer(h));
    int_offsets_.add_elements(t.ints.size());
    int_offsets_.end_row();

    for (const std::string& n : t.str_names) str_names_.string(n);
    for (const FieldHandle& h : t.strs) strs_.string(ev.str(h));
    str_offsets_.add_elements(t.strs.size());
    str_offsets_.end_row();

    for (const std::string& n : t.arr_names) arr_names_.string(n);
    for (size_t i = 0; i < t.arrays.size(); ++i) {
        const FieldHandle& h = t.arrays[i];
        const uint32_t es = t.array_elem_size[i];
        auto bytes = ev.bytes(h);
        // An absent or out-of-range field is an empty span with no pointer to measure from.
        const uint32_t base = bytes.empty() ? 0 : static_cast<uint32_t>(bytes.data() - ev.payload().data());
        // Elements through the event's own reader: the trace's byte order and signedness.
        for (uint32_t at = 0; at + es <= bytes.size(); at += es) {
            const FieldHandle eh{base + at, es, h.flags, true};
            arr_elems_.fixed((h.flags & kFieldSigned) ? ev.i64(eh) : static_cast<int64_t>(ev.u64(eh)));
        }
        arr_elem_offsets_.add_elements(bytes.size() / es);
        arr_elem_offsets_.end_row();
    }
    arr_offsets_.add_elements(t.arrays.size());
    arr_offsets_.end_row();
    ++rows_;
}

void EventBlock::for_each_column(const ColumnVisitor& visit) const {
    const NativeBytes* parts[][3] = {
        {&file_id_col_},
        {&seq_},
        {&file_col_},
        {&host_col_},
        {&ts_},
        {&cpu_},
        {&pid_},
        {&comm_},
        {&system_},
        {&name_},
        {&int_offsets_.data(), &int_names_},
        {&int_offsets_.data(), &ints_},
        {&str_offsets_.data(), &str_names_},
        {&str_offsets_.data(), &strs_},
        {&arr_offsets_.data(), &arr_names_},
        {&arr_offsets_.data(), &arr_elem_offsets_.data(), &arr_elems_},
    };
    static_assert(std::size(parts) == kEventColumnCount);
    for (size_t c = 0; c < kEventColumnCount; ++c)
        visit(kEventColumns[c].name, kEventColumns[c].type, parts[c]);
}

void EventBlock::clear() noexcept {
    rows_ = 0;
    for (NativeBytes* b : {&file_id_col_, &seq_, &file_col_, &host_col_, &ts_, &cpu_, &pid_, &comm_, &system_,
                           &name_, &int_names_, &ints_, &str_names_, &strs_, &arr_names_, &arr_elems_})
        b->clear();
    for (NativeArrayOffsets* o : {&int_offsets_, &str_offsets_, &arr_offsets_, &arr_elem_offsets_})
        o->clear();
}

}  // namespace ringscope::exporter
