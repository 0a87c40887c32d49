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
        n += write_u64_zero(p + n, ts % 1000000000u, 9);
    } else {
        const uint64_t us = (ts + 500) / 1000;
        n = write_u64_right(p, us / 1000000u, 5);
        p[n++] = '.';
        n += write_u64_zero(p + n, us % 1000000u, 6);
    }
    return n;
}

constexpr unsigned kIrqsOff = 0x01, kIrqsNoSupport = 0x02, kNeedResched = 0x04, kHardIrq = 0x08,
                   kSoftIrq = 0x10;

}  // namespace

void ReportLineWriter::append_time(TextBuffer& out, uint64_t ts, bool nsec, const TimeStyle& t) {
    char buf[48];
    out.append(std::string_view(buf, write_time(buf, ts, nsec, t)));
}

void ReportLineWriter::write(std::string_view prefix, const Event& ev, std::string_view comm, int pid,
                             uint64_t ts, int64_t missed, const TimeStyle& t, const CommonLayout& common,
                             std::string_view info) {
    out_.append(prefix);
    if (missed != 0) {
        char b[64];
        size_t n = 0;
        std::memcpy(b, "CPU:", 4);
        n = 4 + write_i64(b + 4, ev.cpu());
        if (missed > 0) {
            b[n++] = ' ';
            b[n++] = '[';
            n += write_i64(b + n, missed);
            std::memcpy(b + n, " EVENTS DROPPED]\n", 17);
            n += 17;
        } else {
            std::memcpy(b + n, " [EVENTS DROPPED]\n", 18);
            n += 18;
        }
        out_.append(b, n);
    }

    // COMM-PID [CPU]
    if (style_.latency) {
        // "%8.8s": the first 8 characters, right-aligned.
        std::string_view c = comm.substr(0, 8);
        if (c.size() < 8) out_.append_repeat(' ', 8 - c.size());
        out_.append(c);
    } else {
        if (comm.size() < 16) out_.append_repeat(' ', 16 - comm.size());
        out_.append(comm);
    }
    char* b = out_.reserve(160);
    size_t n = 0;
    b[n++] = '-';
    n += write_i64_left(b + n, pid, 5);
    b[n++] = ' ';
    if (style_.latency) {
        const int cpu = ev.cpu();
        if (cpu >= 0)
            n += write_u64_right(b + n, static_cast<uint64_t>(cpu), 3);
        else
            n += write_i64(b + n, cpu);
        const unsigned flags =
            common.flags_size
                ? static_cast<unsigned>(ev.u64(FieldHandle{common.flags_offset, common.flags_size, 0, true}))
                : 0;
        if (style_.raw) {
            static const char hex[] = "0123456789abcdef";
            b[n++] = '-';
            b[n++] = '0';
            b[n++] = 'x';
            char tmp[16];
            size_t k = 0;
            unsigned v = flags;
            do {
                tmp[k++] = hex[v & 15];
                v >>= 4;
            } while (v);
            while (k) b[n++] = tmp[--k];
        } else {
            const unsigned pc =
                common.pc_size
                    ? static_cast<unsigned>(ev.u64(FieldHandle{common.pc_offset, common.pc_size, 0, true}))
                    : 0;
            const bool hard = flags & kHardIrq, soft = flags & kSoftIrq;
            b[n++] = (flags & kIrqsOff) ? 'd' : (flags & kIrqsNoSupport) ? 'X' : '.';
            b[n++] = (flags & kNeedResched) ? 'N' : '.';
            b[n++] = (hard && soft) ? 'H' : hard ? 'h' : soft ? 's' : '.';
            // The preempt count's low nibble, then the migrate-disable count the kernel keeps in
            // the high nibble (libtraceevent 1.7.1 prints both; '.' for zero).
            static const char hex[] = "0123456789abcdef";
            b[n++] = (pc & 15) ? hex[pc & 15] : '.';
            b[n++] = ((pc >> 4) & 15) ? hex[(pc >> 4) & 15] : '.';
        }
    } else {
        b[n++] = '[';
        const int cpu = ev.cpu();
        if (cpu >= 0)
            n += write_u64_zero(b + n, static_cast<uint64_t>(cpu), 3);
        else
            n += write_i64(b + n, cpu);
        b[n++] = ']';
    }
    // The time, then ':'; in usecs mode the format has a leading blank (" %6.1000d:").
    if (t.in_usecs) b[n++] = ' ';
    n += write_time(b + n, ts, style_.nsec, t);
    b[n++] = ':';
    if (style_.ts_diff) {
        uint64_t rec_ts = ts;
        if (t.use_trace_clock && !style_.nsec) rec_ts = (rec_ts + 500) / 1000;
        char d[32];
        size_t dn = 0;
        if (last_ts_) {
            d[dn++] = '(';
            d[dn++] = '+';
            dn += write_i64(d + dn, static_cast<int64_t>(rec_ts - last_ts_));
            d[dn++] = ')';
        }
        last_ts_ = rec_ts;
        b[n++] = ' ';
        std::memcpy(b + n, d, dn);
        n += dn;
        if (dn < 8) {
            std::memset(b + n, ' ', 8 - dn);
            n += 8 - dn;
        }
    }
    b[n++] = ' ';
    out_.commit(n);

    std::string_view name = ev.name();
    out_.append(name);
    out_.append(": ", 2);
    if (name.size() < 20) out_.append_repeat(' ', 20 - name.size());
    // trace-cmd drops one trailing newline of the whole line.
    if (!info.empty() && info.back() == '\n') info.remove_suffix(1);
    out_.append(info);
    out_.push_back('\n');
}

}  // namespace ringscope::output
