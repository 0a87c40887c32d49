// The round trip of `ringscope convert` that the Perfetto tests check: the output decoded by the
// tests' own reader (proto_reader.hpp) into events, stats, threads and processes, and compared
// with what report reads from the same files.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ringscope::perfetto::convert_check {

struct Ev {
    uint32_t machine = 0, cpu = 0, pid = 0;
    uint64_t ts = 0, flags = 0;
    std::string name;
    std::map<std::string, std::string> fields;  // "s:text" or "u:<64-bit pattern>"
};

struct Decoded {
    std::vector<Ev> events;
    size_t symbol_fields = 0;                                      // generic NAME_symbol fields checked
    std::map<uint32_t, std::map<uint64_t, uint64_t>> overrun_end;  // machine -> cpu -> count
    std::map<uint32_t, std::map<int64_t, std::string>> threads;    // machine -> tid -> name
    std::map<uint32_t, std::map<int64_t, int64_t>> tgids;          // machine -> tid -> tgid
    std::map<uint32_t, std::map<int64_t, std::string>> processes;  // machine -> pid -> cmdline
    std::map<uint32_t, std::map<int64_t, int64_t>> ppids;          // machine -> pid -> parent's pid
    size_t lost_bundles = 0;
};

inline bool operator==(const Ev& a, const Ev& b) {
    return std::tie(a.machine, a.cpu, a.pid, a.ts, a.flags, a.name, a.fields) ==
           std::tie(b.machine, b.cpu, b.pid, b.ts, b.flags, b.name, b.fields);
}

// V in (machine, CPU, time) order, as the streams of a trace are.
std::vector<Ev> sorted(std::vector<Ev> v);

// A trace's bytes, decoded.
Decoded decode_trace(const std::string& bytes);

std::string read_file(const std::string& path);

// " 'F1' 'F2' ...".
std::string quoted(const std::vector<std::string>& files);

struct ReportCounts {
    std::map<std::string, uint64_t> by_name;
    std::map<uint64_t, uint64_t> dropped;  // CPU -> events report says were dropped
};

// What `report -N` of FILES prints: events by name and the drops per CPU.
ReportCounts report_counts(const std::vector<std::string>& files);

// Converts FILES and checks the output against them. Returns the decoded trace.
Decoded check_conversion(const std::vector<std::string>& files);

// A path under tests/data.
std::string data(const std::string& rel);

}  // namespace ringscope::perfetto::convert_check
