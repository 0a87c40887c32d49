#include "framework/output/event_record_writer.hpp"

#include "framework/output/number_format.hpp"
#include "framework/text/text_escape.hpp"

namespace ringscope::output {

void EventRecordWriter::append_int(int64_t v) {
    char* p = out_.reserve(24);
    out_.commit(write_i64(p, v));
}

void EventRecordWriter::append_uint(uint64_t v) {
    char* p = out_.reserve(24);
    out_.commit(write_u64(p, v));
}

void EventRecordWriter::begin() {
    if (format_ == RecordFormat::csv) out_.append("source,ts,cpu,pid,comm,system,event,missed_before,info\n");
}

void EventRecordWriter::write(std::string_view source, const Event& ev, std::string_view comm, int pid,
                              uint64_t ts, int64_t missed, std::string_view info) {
    if (!info.empty() && info.back() == '\n') info.remove_suffix(1);
    if (format_ == RecordFormat::json)
        write_json(source, ev, comm, pid, ts, missed, info);
    else
        write_csv(source, ev, comm, pid, ts, missed, info);
}

void EventRecordWriter::append_json_escaped(OutputBuffer& out, std::string_view s) {
    text::escape_into(out, s, TextTarget::json);
}

void EventRecordWriter::append_fields(const Event& ev) {
    const EventType& t = ev.type();
    bool first = true;
    auto one = [&](const FieldInfo& f) {
        if (!first) out_.push_back(',');
        first = false;
        out_.push_back('"');
        append_json_escaped(out_, f.name);
        out_.append("\":", 2);
        const FieldHandle h{f.offset, f.size, f.flags, true};
        if (f.is_string()) {
            out_.push_back('"');
            append_json_escaped(out_, ev.str(h));
            out_.push_back('"');
        } else if ((f.flags & kFieldArray) || f.is_dynamic()) {
            auto bytes = ev.bytes(h);
            const uint32_t es = f.elem_size == 1 || f.elem_size == 2 || f.elem_size == 4 || f.elem_size == 8
                                    ? f.elem_size
                                    : 1;
            out_.push_back('[');
            // Elements through the same typed reader as scalars: a handle per element.
            const uint32_t base = static_cast<uint32_t>(bytes.data() - ev.payload().data());
            for (uint32_t i = 0; i + es <= bytes.size(); i += es) {
                if (i) out_.push_back(',');
                const FieldHandle eh{base + i, es, f.flags, true};
                if (f.is_signed())
                    append_int(ev.i64(eh));
                else
                    append_uint(ev.u64(eh));
            }
            out_.push_back(']');
        } else if (f.is_signed()) {
            append_int(ev.i64(h));
        } else {
            append_uint(ev.u64(h));
        }
    };
    for (const auto& f : t.common_fields) one(f);
    for (const auto& f : t.fields) one(f);
}

void EventRecordWriter::write_json(std::string_view source, const Event& ev, std::string_view comm, int pid,
                                   uint64_t ts, int64_t missed, std::string_view info) {
    out_.append("{\"source\":\"", 11);
    append_json_escaped(out_, source);
    out_.append("\",\"ts\":", 7);
    append_uint(ts);
    out_.append(",\"cpu\":", 7);
    append_int(ev.cpu());
    out_.append(",\"pid\":", 7);
    append_int(pid);
    out_.append(",\"comm\":\"", 9);
    append_json_escaped(out_, comm);
    out_.append("\",\"system\":\"", 12);
    append_json_escaped(out_, ev.system());
    out_.append("\",\"event\":\"", 11);
    append_json_escaped(out_, ev.name());
    out_.push_back('"');
    if (missed != 0) {
        out_.append(",\"missed_before\":", 17);
        append_int(missed);
    }
    out_.append(",\"fields\":{", 11);
    append_fields(ev);
    out_.append("},\"info\":\"", 10);
    append_json_escaped(out_, info);
    out_.append("\"}\n", 3);
}

void EventRecordWriter::append_csv_cell(std::string_view s) {
    text::append_csv_cell(out_, s);
}

void EventRecordWriter::write_csv(std::string_view source, const Event& ev, std::string_view comm, int pid,
                                  uint64_t ts, int64_t missed, std::string_view info) {
    append_csv_cell(source);
    out_.push_back(',');
    append_uint(ts);
    out_.push_back(',');
    append_int(ev.cpu());
    out_.push_back(',');
    append_int(pid);
    out_.push_back(',');
    append_csv_cell(comm);
    out_.push_back(',');
    append_csv_cell(ev.system());
    out_.push_back(',');
    append_csv_cell(ev.name());
    out_.push_back(',');
    append_int(missed);
    out_.push_back(',');
    append_csv_cell(info);
    out_.push_back('\n');
}

}  // namespace ringscope::output
