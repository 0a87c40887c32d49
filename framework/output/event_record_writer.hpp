// Machine-readable event output for `ringscope report --format json|csv`: one record per event,
// streamed into an OutputBuffer as the events come (nothing is kept).
//  json: one object per line (JSON Lines): source, ts (ns), cpu, pid, comm, system, event,
//        missed_before (when events were lost just before), fields (every field, typed: integers as
//        numbers with the field's signedness, char arrays and strings as strings, other arrays as
//        arrays of numbers) and info (the report text).
//  csv:  a header line, then source,ts,cpu,pid,comm,system,event,missed_before,info (RFC 4180 quoting).
// Text from the trace is escaped as ringscope/text_escape.hpp says (json: always valid UTF-8, bytes
// that are not as \\xHH; csv: cells starting with = + - @ get a ' in front).
#pragma once

#include <cstdint>
#include <string_view>

#include <ringscope/event.hpp>

#include "framework/output/output_buffer.hpp"

namespace ringscope::output {

enum class RecordFormat : uint8_t { json, csv };

class EventRecordWriter {
  public:
    EventRecordWriter(OutputBuffer& out, RecordFormat format) : out_(out), format_(format) {}

    void begin();  // csv: the header line
    void write(std::string_view source, const Event& ev, std::string_view comm, int pid, uint64_t ts,
               int64_t missed, std::string_view info);

    // JSON string contents (no quotes): TextTarget::json.
    static void append_json_escaped(OutputBuffer& out, std::string_view s);

  private:
    void write_json(std::string_view source, const Event& ev, std::string_view comm, int pid, uint64_t ts,
                    int64_t missed, std::string_view info);
    void write_csv(std::string_view source, const Event& ev, std::string_view comm, int pid, uint64_t ts,
                   int64_t missed, std::string_view info);
    void append_fields(const Event& ev);
    void append_csv_cell(std::string_view s);
    void append_int(int64_t v);
    void append_uint(uint64_t v);

    OutputBuffer& out_;
    RecordFormat format_;
};

}  // namespace ringscope::output
