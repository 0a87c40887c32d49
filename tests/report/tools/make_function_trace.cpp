// make_function_trace IN OUT: writes OUT, a v7 trace.dat with IN's metadata (formats, kallsyms,
// cmdlines) and two CPUs of ftrace/function events, for what this machine cannot record (its
// function tracer is locked): call chains that indent, returns, functions entered at an offset,
// addresses no symbol covers. `trace-cmd report -O ...` on it gives the oracles of report -O.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"

using namespace ringscope;
using namespace ringscope::io;

namespace {

struct Call {
    const char* func;
    uint32_t func_off;
    const char* parent;
    uint32_t parent_off;
};

// Each CPU's calls in order; nullptr names an address outside every symbol.
const std::vector<std::vector<Call>> kCalls = {
    {{"do_syscall_64", 0, "entry_SYSCALL_64_after_hwframe", 0x4b},
     {"x64_sys_call", 0x10, "do_syscall_64", 0x7e},
     {"__x64_sys_read", 0, "x64_sys_call", 0x1c2},
     {"ksys_read", 0, "__x64_sys_read", 0x19},
     {"vfs_read", 0x4, "ksys_read", 0x72},
     {"ksys_read", 0, "__x64_sys_read", 0x19},
     {"do_syscall_64", 0, "entry_SYSCALL_64_after_hwframe", 0x4b},
     {nullptr, 0, "do_syscall_64", 0x10},
     {"schedule", 0, nullptr, 0}},
    {{"schedule", 0, "do_syscall_64", 0x30},
     {"__schedule", 0x8, "schedule", 0x2e},
     {"do_sys_open", 0, "x64_sys_call", 0x40},
     {"__schedule", 0x8, "schedule", 0x2e}},
};

int fail(const std::string& what) {
    std::fprintf(stderr, "make_function_trace: %s\n", what.c_str());
    return 1;
}

std::optional<uint64_t> number_after(const std::string& text, const std::string& key) {
    size_t p = text.find(key);
    if (p == std::string::npos) return std::nullopt;
    return std::stoull(text.substr(p + key.size()));
}

void put32(std::vector<uint8_t>& v, size_t at, uint32_t x) { std::memcpy(v.data() + at, &x, 4); }
void put64(std::vector<uint8_t>& v, size_t at, uint64_t x) { std::memcpy(v.data() + at, &x, 8); }

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return fail("usage: make_function_trace IN OUT");
    auto r = TraceDatReader::open(argv[1]);
    if (!r) return fail(r.error().to_string());
    TraceMetadata meta = r->metadata();
    std::optional<uint64_t> id, ip_off, parent_off;
    for (const auto& f : meta.ftrace_formats) {
        if (f.find("name: function\n") != 0) continue;
        id = number_after(f, "ID: ");
        ip_off = number_after(f, "unsigned long ip;\toffset:");
        parent_off = number_after(f, "unsigned long parent_ip;\toffset:");
    }
    if (!id || !ip_off || !parent_off) return fail("no ftrace/function format in " + std::string(argv[1]));
    std::unordered_map<std::string, uint64_t> addr;
    std::unordered_map<std::string, bool> wanted;
    for (const auto& cpu : kCalls)
        for (const Call& c : cpu)
            for (const char* n : {c.func, c.parent})
                if (n) wanted[n] = true;
    // The file keeps the symbols the calls use and the one after each (it ends the function), so
    // it stays small.
    std::istringstream ks(meta.kallsyms);
    std::string kept;
    bool keep_next = false;
    for (std::string line; std::getline(ks, line);) {
        std::istringstream ls(line);
        std::string a, type, name;
        if (!(ls >> a >> type >> name)) continue;
        const bool want = wanted.count(name) && (type == "t" || type == "T");
        if (want) addr.emplace(name, std::stoull(a, nullptr, 16));
        if (want || keep_next) kept += line + "\n";
        keep_next = want;
    }
    meta.kallsyms = kept;
    auto where = [&](const char* name, uint32_t off) -> std::optional<uint64_t> {
        if (!name) return 0x1234ull;  // below every symbol
        auto it = addr.find(name);
        if (it == addr.end()) return std::nullopt;
        return it->second + off;
    };

    WriterConfig cfg;
    cfg.page_size = 4096;
    std::vector<BufferSpec> specs{BufferSpec{"", "local", 4096, {0, 1}}};
    auto w = TraceDatWriter::create(argv[2], cfg, std::move(meta), specs);
    if (!w) return fail(w.error().to_string());
    const uint64_t base_ts = 440458000000ull;  // basic.dat's time range
    for (size_t cpu = 0; cpu < kCalls.size(); ++cpu) {
        std::vector<uint8_t> page(4096, 0);
        put64(page, 0, base_ts + cpu * 500);
        size_t pos = 16;
        for (const Call& c : kCalls[cpu]) {
            auto ip = where(c.func, c.func_off), pip = where(c.parent, c.parent_off);
            if (!ip || !pip) return fail("a symbol of the call table is not in the kallsyms");
            // header: type_len 6 (24-byte payload), time delta 1000 ns
            put32(page, pos, 6u | (1000u << 5));
            put32(page, pos + 4, static_cast<uint32_t>(*id));  // common_type; flags, preempt count 0
            put32(page, pos + 8, 8664);                                      // common_pid
            put64(page, pos + 4 + *ip_off, *ip);
            put64(page, pos + 4 + *parent_off, *pip);
            pos += 28;
        }
        put64(page, 8, pos - 16);
        if (auto st = (*w)->begin_cpu(); !st) return fail(st.error().to_string());
        if (auto st = (*w)->write_pages(page); !st) return fail(st.error().to_string());
        if (auto st = (*w)->end_cpu(); !st) return fail(st.error().to_string());
    }
    if (auto st = (*w)->finish(); !st) return fail(st.error().to_string());
    return 0;
}
