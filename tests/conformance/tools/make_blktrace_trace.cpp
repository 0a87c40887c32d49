// make_blktrace_trace REAL.dat OUT.dat: a trace with the kernel's blk tracer records in it, for
// libtracecmd's made-up ftrace:blktrace event (framework/engine/blktrace_format.hpp). The blk
// tracer (`echo blk > current_tracer` with a device's trace/enable set) cannot run here, so the
// records are written as kernel/trace/blktrace.c's __blk_add_trace() fills them in the ftrace
// buffer: type TRACE_BLK (one past ftrace's user_stack in enum trace_type), then struct
// blk_io_trace from `sector` on (magic, sequence and time lie under the common fields and the
// kernel leaves them unwritten), then pdu_len bytes (a cgroup id, a SCSI command). The formats,
// header page and file layout are REAL.dat's (a recording of this machine), one CPU of data.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"

using namespace ringscope;

namespace {

struct BlkRecord {
    uint64_t delta;  // ns after the previous record
    int common_pid;
    uint64_t sector;
    uint32_t bytes, action, pid, device, cpu;
    uint16_t error;
    std::vector<uint8_t> pdu;
};

void put(std::vector<uint8_t>& v, size_t at, uint64_t x, size_t n) {
    for (size_t i = 0; i < n; ++i) v[at + i] = static_cast<uint8_t>(x >> (8 * i));
}

// struct blk_io_trace after the ftrace common fields (little endian, 8-byte longs).
std::vector<uint8_t> payload(uint16_t type, const BlkRecord& r) {
    std::vector<uint8_t> p(48 + r.pdu.size(), 0);
    put(p, 0, type, 2);
    put(p, 4, static_cast<uint32_t>(r.common_pid), 4);
    put(p, 16, r.sector, 8);
    put(p, 24, r.bytes, 4);
    put(p, 28, r.action, 4);
    put(p, 32, r.pid, 4);
    put(p, 36, r.device, 4);
    put(p, 40, r.cpu, 4);
    put(p, 44, r.error, 2);
    put(p, 46, r.pdu.size(), 2);
    std::memcpy(p.data() + 48, r.pdu.data(), r.pdu.size());
    p.resize((p.size() + 3) & ~size_t{3}, 0);
    return p;
}

// One ring-buffer page of 4096 bytes: u64 time stamp, 8-byte commit, then the events.
std::vector<uint8_t> page_of(uint16_t type, uint64_t start, const std::vector<BlkRecord>& recs) {
    std::vector<uint8_t> page(4096, 0);
    put(page, 0, start, 8);
    size_t pos = 16;
    for (const BlkRecord& r : recs) {
        const std::vector<uint8_t> p = payload(type, r);
        // type_len = length / 4 (all records here are below 112 bytes), time delta above it
        put(page, pos, (r.delta << 5) | (p.size() / 4), 4);
        std::memcpy(page.data() + pos + 4, p.data(), p.size());
        pos += 4 + p.size();
    }
    put(page, 8, pos - 16, 8);
    return page;
}

int fail(const std::string& what) {
    std::fprintf(stderr, "make_blktrace_trace: %s\n", what.c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return fail("usage: make_blktrace_trace REAL.dat OUT.dat");
    auto real = io::TraceDatReader::open(argv[1], 1);
    if (!real) return fail(real.error().to_string());
    const io::TraceMetadata& from = real->metadata();
    int user_stack = -1;
    for (const std::string& f : from.ftrace_formats)
        if (f.starts_with("name: user_stack\nID: ")) user_stack = std::atoi(f.c_str() + 21);
    if (user_stack < 0) return fail(std::string(argv[1]) + " has no ftrace user_stack format");
    io::TraceMetadata meta;
    meta.header_page = from.header_page;
    meta.header_event = from.header_event;
    meta.ftrace_formats = from.ftrace_formats;
    for (const auto& sys : from.event_systems)
        if (sys.system == "block" || sys.system == "sched") meta.event_systems.push_back(sys);
    meta.saved_cmdlines = "310 kworker/0:1H\n4242 dd\n";
    meta.cpu_count = 1;
    meta.options.trace_clock = "[local] global counter uptime perf mono mono_raw boot\n";
    meta.options.uname = "Linux blktrace 6.18.0 x86_64";

    const uint32_t sda = (8u << 20) | 0;  // MKDEV(8, 0)
    // actions: BLK_TA_QUEUE | (BLK_TC_WRITE << 16), BLK_TA_ISSUE, BLK_TA_COMPLETE; a cgroup id
    // (8 bytes) and a 16-byte SCSI command as the kernel appends them
    std::vector<uint8_t> cgroup{0x2a, 0, 0, 0, 0, 0, 0, 0};
    std::vector<uint8_t> cdb{0x2a, 0, 0, 0, 0x12, 0x34, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0};
    const std::vector<BlkRecord> recs = {
        {0, 4242, 2048, 4096, 0x00020001, 4242, sda, 0, 0, {}},
        {1500, 4242, 2048, 4096, 0x00020007, 4242, sda, 0, 0, cgroup},
        {2000, 310, 2048, 4096, 0x00820004, 310, sda, 0, 0, cdb},
        {90000, 0, 2048, 4096, 0x00020008, 4242, sda, 0, 5, {}},
    };
    const std::vector<uint8_t> page = page_of(static_cast<uint16_t>(user_stack + 1), 50000000000ull, recs);

    io::WriterConfig cfg;
    cfg.long_size = 8;
    cfg.page_size = 4096;
    cfg.compression = io::Compression::none;
    auto w =
        io::TraceDatWriter::create(argv[2], cfg, std::move(meta), {io::BufferSpec{"", "local", 4096, {0}}});
    if (!w) return fail(w.error().to_string());
    if (auto st = (*w)->begin_cpu(); !st) return fail(st.error().to_string());
    if (auto st = (*w)->write_pages(page); !st) return fail(st.error().to_string());
    if (auto st = (*w)->end_cpu(); !st) return fail(st.error().to_string());
    if (auto st = (*w)->finish(); !st) return fail(st.error().to_string());
    return 0;
}
