// Plain data carried by a trace-cmd trace.dat file (versions 6 and 7), shared by the reader and the
// writer. Texts are kept exactly as stored (without the option's terminating NUL).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ringscope::io {

// Whether bytes start as every trace.dat does ("\x17\x08\x44tracing"): a cheap probe before a
// file is handed to the reader or to a plugin decoder.
inline bool has_trace_dat_magic(std::span<const uint8_t> head) noexcept {
    static constexpr char kMagic[] = "\x17\x08\x44tracing";
    return head.size() >= sizeof kMagic - 1 && std::memcmp(head.data(), kMagic, sizeof kMagic - 1) == 0;
}

// The most CPUs a file may declare (Linux's NR_CPUS goes up to 8192): per-CPU tables are sized
// by the count.
inline constexpr uint32_t kMaxCpus = 8192;

enum class Compression : uint8_t { none, zlib, zstd };

const char* compression_name(Compression c) noexcept;

// Option ids as trace-cmd 3.1.6 writes them (v6 and v7 share the numbering).
enum class OptionId : uint16_t {
    done = 0,
    date = 1,
    cpustat = 2,
    buffer = 3,
    traceclock = 4,
    uname = 5,
    hook = 6,
    offset = 7,
    cpucount = 8,
    version = 9,
    procmaps = 10,
    traceid = 11,
    time_shift = 12,
    guest = 13,
    tsc2nsec = 14,
    strings = 15,
    header_info = 16,
    ftrace_events = 17,
    event_formats = 18,
    kallsyms = 19,
    printk = 20,
    cmdlines = 21,
    buffer_text = 22,
    btf_file = 23,
    last_boot_info = 24,
    modules_file = 25,
};

struct TimeShiftSample {
    int64_t time = 0;      // when the sample was taken (guest clock)
    int64_t offset = 0;    // host - guest
    int64_t scaling = 1;   // multiplier
    int64_t fraction = 0;  // fraction bits (right shift after scaling); 0 when the file has none
};

// TIME_SHIFT (12): samples per CPU in file order (not sorted, duplicates kept: the consumer
// decides, libtracecmd sorts by time and drops equal times when it loads them).
struct TimeShift {
    uint64_t peer_trace_id = 0;
    uint32_t flags = 0;  // bit 0: interpolate between samples
    std::vector<std::vector<TimeShiftSample>> cpus;
    bool has_fraction = false;  // the per-CPU fraction-bits arrays are present
};

// GUEST (13): one per traced guest, in the host's file.
struct GuestInfo {
    struct Vcpu {
        uint32_t vcpu = 0;
        uint32_t host_pid = 0;
    };
    std::string name;
    uint64_t trace_id = 0;
    std::vector<Vcpu> vcpus;  // file order
};

// TSC2NSEC (14): ns = (ts * mult) >> shift (+ offset, which libtracecmd 1.3.1 ignores).
struct Tsc2Nsec {
    uint32_t mult = 0;
    uint32_t shift = 0;
    uint64_t offset = 0;
};

// An option this build does not interpret, kept byte for byte (BTF_FILE, LAST_BOOT_INFO, ...).
struct RawOption {
    uint16_t id = 0;
    std::vector<uint8_t> data;
};

// trace-cmd 3.4's BTF_FILE, LAST_BOOT_INFO and MODULES_FILE: in v7 they hold the offset of a
// section of the file they are in (meaningless in any other file).
inline bool is_section_offset_option(uint16_t id) {
    return id >= static_cast<uint16_t>(OptionId::btf_file) &&
           id <= static_cast<uint16_t>(OptionId::modules_file);
}

// A v7 section written for an option that holds its offset (trace-cmd 3.4's BTF_FILE,
// LAST_BOOT_INFO, MODULES_FILE): the payload as stored, uncompressed. v6 files have no sections:
// the writer leaves these out there.
struct ExtraSection {
    OptionId id = OptionId::done;
    std::string description;  // the section's name in the strings table ("BTF", ...)
    std::string data;
};

// Every option of a file except the structural ones (DONE, BUFFER, BUFFER_TEXT and the v7 section
// offsets), which the reader turns into buffers and sections.
struct TraceDatOptions {
    std::optional<std::string> date;         // DATE (1): "0x..." microseconds to add
    std::vector<std::string> cpustats;       // CPUSTAT (2): per_cpu/cpuN/stats, file order
    std::optional<std::string> trace_clock;  // TRACECLOCK (4): the trace_clock file
    std::optional<std::string> uname;        // UNAME (5)
    std::vector<std::string> hooks;          // HOOK (6)
    std::optional<std::string> offset;       // OFFSET (7): ns to add, as text
    std::optional<uint32_t> cpu_count;       // CPUCOUNT (8)
    std::optional<std::string> version;      // VERSION (9)
    std::optional<std::string> procmaps;     // PROCMAPS (10)
    std::optional<uint64_t> trace_id;        // TRACEID (11)
    std::optional<TimeShift> time_shift;     // TIME_SHIFT (12)
    std::vector<GuestInfo> guests;           // GUEST (13), file order
    std::optional<Tsc2Nsec> tsc2nsec;        // TSC2NSEC (14)
    std::vector<RawOption> unknown;          // anything else, file order
};

// Where one CPU's ring-buffer data lives.
struct CpuDataInfo {
    uint32_t cpu = 0;     // the CPU id as recorded
    uint64_t offset = 0;  // file offset (v7 compressed: of the chunk count word)
    uint64_t size = 0;    // bytes in the file (v7 compressed: the chunks, without the count word)
};

// One trace buffer: the top buffer (name "") or an instance.
struct BufferInfo {
    std::string name;             // "" for the top buffer
    std::string clock;            // v7: from the BUFFER option; v6: from the trace clock text
    uint32_t page_size = 0;       // sub-buffer size of this buffer's pages
    uint64_t section_offset = 0;  // v7: the buffer section; v6: the "flyrecord" table
    bool latency = false;         // BUFFER_TEXT / "latency" data: text, no CPU pages
    bool compressed = false;      // v7: CPU data in compressed chunks (the section's flag)
    std::vector<CpuDataInfo> cpus;
};

struct EventSystemFormats {
    std::string system;
    std::vector<std::string> formats;  // one `format` file each
};

// The metadata sections of a file (what the writer takes and the reader exposes).
struct TraceMetadata {
    std::string header_page;   // events/header_page
    std::string header_event;  // events/header_event
    std::vector<std::string> ftrace_formats;
    std::vector<EventSystemFormats> event_systems;
    std::string kallsyms;
    std::string printk_formats;
    std::string saved_cmdlines;
    uint32_t cpu_count = 0;  // v6 header word; v7: CPUCOUNT (options.cpu_count wins if both set)
    TraceDatOptions options;
    // Written by TraceDatWriter (v7) after the printk section, each pointed to by its option.
    std::vector<ExtraSection> extra_sections;
    // v6 only: the trace_clock text stored after the top buffer's "flyrecord" CPU table (written
    // only when options.trace_clock is set, as trace-cmd does).
    std::optional<std::string> flyrecord_clock;
};

}  // namespace ringscope::io
