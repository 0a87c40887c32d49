#include "framework/output/report_line_writer.hpp"

#include <algorithm>

#include "framework/output/number_format.hpp"

namespace ringscope::output {

namespace {

// libtraceevent's print_event_time(): " %6.1000d" (microseconds, rounded), " %9.1d" (-t: the
// nanoseconds as they are), "%12d" (not a seconds clock: the number in 12 columns).
size_t write_time(char* p, uint64_t ts, bool nsec, const TimeStyle& t) {
    if (!t.in_usecs) return write_u64_right(p, ts, 12);
    size_t n;
    if (nsec) {
        n = write_u64_right(p, ts / 1000000000u, 5);
        p[n++] = '.';
        write_9_digits(p + n, static_cast<uint32_t>(ts % 1000000000u));
        return n + 9;
    }
    const uint64_t us = (ts + 500) / 1000;
    n = write_u64_right(p, us / 1000000u, 5);
    p[n++] = '.';
    write_6_digits(p + n, static_cast<uint32_t>(us % 1000000u));
    return n + 6;
}

constexpr char kBlanks[] = "                    ";  // 20

constexpr unsigned kIrqsOff = 0x01, kIrqsNoSupport = 0x02, kNeedResched = 0x04, kHardIrq = 0x08,
                   kSoftIrq = 0x10;
constexpr char kHex[] = "0123456789abcdef";

// "-0x%x" of the flags (-R).
size_t write_raw_flags(char* b, unsigned flags) {
    size_t n = 0;
    b[n++] = '-';
    b[n++] = '0';
    b[n++] = 'x';
    char tmp[16];
    size_t k = 0;
    do {
        tmp[k++] = kHex[flags & 15];
        flags >>= 4;
    } while (flags);
    while (k) b[n++] = tmp[--k];
    return n;
}

// libtraceevent's data_latency_format(): irqs-off, need-resched, hard/soft irq, then the preempt
// count's low nibble and the migrate-disable count the kernel keeps in the high nibble ('.' for 0).
size_t write_latency_flags(char* b, unsigned flags, unsigned pc) {
    const bool hard = flags & kHardIrq, soft = flags & kSoftIrq;
    b[0] = (flags & kIrqsOff) ? 'd' : (flags & kIrqsNoSupport) ? 'X' : '.';
    b[1] = (flags & kNeedResched) ? 'N' : '.';
    b[2] = (hard && soft) ? 'H' : hard ? 'h' : soft ? 's' : '.';
    b[3] = (pc & 15) ? kHex[pc & 15] : '.';
    b[4] = ((pc >> 4) & 15) ? kHex[(pc >> 4) & 15] : '.';
    return 5;
}

// "CPU:N [M EVENTS DROPPED]\n" (M unknown when negative: "CPU:N [EVENTS DROPPED]\n").
size_t write_dropped(char* b, int cpu, int64_t missed) {
    size_t n = 0;
    std::memcpy(b, "CPU:", 4);
    n += 4;
    n += write_i64(b + n, cpu);
    if (missed > 0) {
        b[n++] = ' ';
        b[n++] = '[';
        n += write_i64(b + n, missed);
        std::memcpy(b + n, " EVENTS DROPPED]\n", 17);
        return n + 17;
    }
    std::memcpy(b + n, " [EVENTS DROPPED]\n", 18);
    return n + 18;
}

// "[%03d]", or with -l "%3d".
size_t write_cpu(char* b, int cpu, bool latency) {
    size_t n = 0;
    if (latency) return cpu >= 0 ? write_u64_right(b, static_cast<uint64_t>(cpu), 3) : write_i64(b, cpu);
    b[n++] = '[';
    if (cpu >= 0)
        n += write_u64_zero(b + n, static_cast<uint64_t>(cpu), 3);
    else
        n += write_i64(b + n, cpu);
    b[n++] = ']';
    return n;
}

// The flags column (3.4's, or -l's), or with -R the flags in hex.
size_t write_flags(char* b, const Event& ev, const CommonLayout& common, const ReportStyle& style) {
    const unsigned flags =
        common.flags_size
            ? static_cast<unsigned>(ev.u64(FieldHandle{common.flags_offset, common.flags_size, 0, true}))
            : 0;
    if (style.raw) return write_raw_flags(b, flags);
    const unsigned pc =
        common.pc_size ? static_cast<unsigned>(ev.u64(FieldHandle{common.pc_offset, common.pc_size, 0, true}))
                       : 0;
    size_t n = 0;
    if (!style.latency) b[n++] = ' ';
    return n + write_latency_flags(b + n, flags, pc);
}

// --ts-diff: " (+D)" from the event before, padded to 8 columns; `last_ts` becomes this one's.
size_t write_ts_diff(char* b, uint64_t ts, const TimeStyle& t, bool nsec, uint64_t& last_ts) {
    uint64_t rec_ts = ts;
    if (t.use_trace_clock && !nsec) rec_ts = (rec_ts + 500) / 1000;
    char d[32];
    size_t dn = 0;
    if (last_ts) {
        d[dn++] = '(';
        d[dn++] = '+';
        dn += write_i64(d + dn, static_cast<int64_t>(rec_ts - last_ts));
        d[dn++] = ')';
    }
    last_ts = rec_ts;
    size_t n = 0;
    b[n++] = ' ';
    std::memcpy(b + n, d, dn);
    n += dn;
    if (dn < 8) {
        std::memset(b + n, ' ', 8 - dn);
        n += 8 - dn;
    }
    return n;
}

}  // namespace

void ReportLineWriter::append_time(TextBuffer& out, uint64_t ts, bool nsec, const TimeStyle& t) {
    char buf[48];
    out.append(std::string_view(buf, write_time(buf, ts, nsec, t)));
}

void ReportLineWriter::write(std::string_view prefix, const Event& ev, std::string_view comm, int pid,
                             uint64_t ts, int64_t missed, const TimeStyle& t, const CommonLayout& common,
                             std::string_view info) {
    write_head(prefix, ev, comm, pid, ts, missed, t, common);
    // trace-cmd drops one trailing newline of the whole line.
    if (!info.empty() && info.back() == '\n') info.remove_suffix(1);
    out_.append(info);
    out_.push_back('\n');
}

void ReportLineWriter::write(std::string_view prefix, const Event& ev, std::string_view comm, int pid,
                             uint64_t ts, int64_t missed, const TimeStyle& t, const CommonLayout& common,
                             const format::CompiledPrint& info, const format::RecordView& record) {
    write_head(prefix, ev, comm, pid, ts, missed, t, common);
    char* p = out_.reserve(info.room(record.size) + 1);
    size_t n = info.write(p, record);
    if (n && p[n - 1] == '\n') --n;
    p[n++] = '\n';
    out_.commit(n);
}

void ReportLineWriter::write_head(std::string_view prefix, const Event& ev, std::string_view comm, int pid,
                                  uint64_t ts, int64_t missed, const TimeStyle& t,
                                  const CommonLayout& common) {
    // One reservation for the whole head: the fixed columns take at most 160 bytes, the dropped
    // events line 64.
    const std::string_view name = ev.name();
    const std::string_view c = style_.latency ? comm.substr(0, 8) : comm;
    const size_t comm_width = style_.latency ? 8 : 16;
    char* const start =
        out_.reserve(prefix.size() + 64 + std::max(c.size(), comm_width) + 160 + name.size() + 22);
    char* b = start;
    if (!prefix.empty()) {
        std::memcpy(b, prefix.data(), prefix.size());
        b += prefix.size();
    }
    if (missed != 0) b += write_dropped(b, ev.cpu(), missed);

    // COMM-PID [CPU] ("%8.8s" with -l: the first 8 characters, right-aligned)
    if (c.size() < comm_width) {
        // a fixed 16-byte store of blanks (the reservation has the room) instead of a memset call
        std::memcpy(b, kBlanks, 16);
        b += comm_width - c.size();
    }
    if (!c.empty()) {
        std::memcpy(b, c.data(), c.size());
        b += c.size();
    }
    size_t n = 0;
    b[n++] = '-';
    n += write_i64_left(b + n, pid, 5);
    b[n++] = ' ';
    n += write_cpu(b + n, ev.cpu(), style_.latency);
    if (style_.latency || style_.flags_column) n += write_flags(b + n, ev, common, style_);
    // The time, then ':'; in usecs mode the format has a leading blank (" %6.1000d:").
    if (t.in_usecs) b[n++] = ' ';
    n += write_time(b + n, ts, style_.nsec, t);
    b[n++] = ':';
    if (style_.ts_diff) n += write_ts_diff(b + n, ts, t, style_.nsec, last_ts_);
    b[n++] = ' ';
    std::memcpy(b + n, name.data(), name.size());
    n += name.size();
    b[n++] = ':';
    b[n++] = ' ';
    if (name.size() < 20) {
        std::memcpy(b + n, kBlanks, 20);
        n += 20 - name.size();
    }
    out_.commit(static_cast<size_t>(b + n - start));
}

}  // namespace ringscope::output
