// ptdump's tracking column: the last IP (--lastip) and the time and its calibration (--time,
// --tcal) as the packets update them.
#include "ipt/ptdump_printer.hpp"

// Fields are cut to ptdump's widths on purpose, as ptdump's snprintf does.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

namespace ringscope::ipt {

void PtdumpPrinter::track_last_ip(PtdumpLine& line, uint64_t offset, const PacketIp& ip) {
    field(line.tracking.id, "ip");
    int err = tracking_.last_ip.update(ip);
    if (err < 0) {
        field(line.tracking.payload, "<unavailable>");
        diag("error tracking last-ip", offset, err);
        return;
    }
    uint64_t value = 0;
    err = tracking_.last_ip.query(&value);
    if (err < 0) {
        if (err == -pte_ip_suppressed) {
            field(line.tracking.payload, "<suppressed>");
        } else {
            field(line.tracking.payload, "<unavailable>");
            diag("error tracking last-ip", offset, err);
        }
        return;
    }
    field(line.tracking.payload, "%016" PRIx64, value);
}

void PtdumpPrinter::print_time(PtdumpLine& line, uint64_t offset) {
    field(line.tracking.id, "tsc");
    uint64_t tsc = 0;
    int err = tracking_.time.query_tsc(&tsc, nullptr, nullptr);
    if (err < 0 && !(err == -pte_no_time && options_.no_wall_clock)) {
        diag("error printing time", offset, err);
        field(line.tracking.payload, "<unavailable>");
        return;
    }
    if (options_.show_time_as_delta) {
        uint64_t old = tracking_.tsc;
        if (old <= tsc)
            field(line.tracking.payload, "+%" PRIx64, tsc - old);
        else
            field(line.tracking.payload, "-%" PRIx64, old - tsc);
        tracking_.tsc = tsc;
    } else {
        field(line.tracking.payload, "%016" PRIx64, tsc);
    }
}

void PtdumpPrinter::print_tcal(PtdumpLine& line, uint64_t offset) {
    field(line.tracking.id, "fcr");
    uint64_t fcr = 0;
    int err = tracking_.tcal.get_fcr(fcr);
    if (err < 0) {
        field(line.tracking.payload, "<unavailable>");
        diag("error printing time", offset, err);
        return;
    }
    // fcr is fixed point: print it as a double.
    double dfcr = static_cast<double>(fcr) / static_cast<double>(1ull << kFcrShift);
    if (options_.show_time_as_delta) {
        double old = static_cast<double>(tracking_.fcr) / static_cast<double>(1ull << kFcrShift);
        field(line.tracking.payload, "%+.3f", dfcr - old);
        tracking_.fcr = fcr;
    } else {
        field(line.tracking.payload, "%.3f", dfcr);
    }
}

void PtdumpPrinter::track_time(PtdumpLine& line, uint64_t offset) {
    if (options_.show_tcal && !line.skip_tcal) print_tcal(line, offset);
    if (options_.show_time && !line.skip_time) print_time(line, offset);
}

void PtdumpPrinter::track_tsc(PtdumpLine& line, uint64_t offset, uint64_t tsc) {
    if (!options_.no_tcal) {
        int err = tracking_.in_header ? tracking_.tcal.header_tsc(tsc) : tracking_.tcal.update_tsc(tsc);
        if (err < 0) diag("error calibrating time", offset, err);
    }
    int err = tracking_.time.update_tsc(tsc);
    if (err < 0) diag("error updating time", offset, err);
    track_time(line, offset);
}

void PtdumpPrinter::track_cbr(PtdumpLine& line, uint64_t offset, uint8_t cbr) {
    if (!options_.no_tcal) {
        int err = tracking_.in_header ? tracking_.tcal.header_cbr(cbr, config_)
                                      : tracking_.tcal.update_cbr(cbr, config_);
        if (err < 0) diag("error calibrating time", offset, err);
    }
    int err = tracking_.time.update_cbr(cbr);
    if (err < 0) diag("error updating time", offset, err);
    line.skip_time = true;  // no time update at a CBR
    track_time(line, offset);
}

void PtdumpPrinter::track_tma(PtdumpLine& line, uint64_t offset, const PacketTma& tma) {
    int err = tracking_.time.update_tma(tma, config_);
    if (err < 0) diag("error updating time", offset, err);
    line.skip_tcal = true;  // no calibration update at a TMA
    track_time(line, offset);
}

void PtdumpPrinter::track_mtc(PtdumpLine& line, uint64_t offset, uint8_t mtc) {
    if (!options_.no_tcal) {
        int err = tracking_.tcal.update_mtc(mtc, config_);
        if (err < 0) diag("error calibrating time", offset, err);
    }
    int err = tracking_.time.update_mtc(mtc, config_);
    if (err < 0) diag("error updating time", offset, err);
    track_time(line, offset);
}

void PtdumpPrinter::track_cyc(PtdumpLine& line, uint64_t offset, uint64_t cyc) {
    uint64_t fcr = 0;
    if (!options_.no_tcal) {
        int err = tracking_.tcal.get_fcr(fcr);
        if (err < 0) diag("calibration error", offset, err);
        err = tracking_.tcal.update_cyc(cyc);
        if (err < 0) diag("error calibrating time", offset, err);
    }
    int err = tracking_.time.update_cyc(cyc, config_, fcr);
    if (err < 0)
        diag("error updating time", offset, err);
    else if (!fcr)
        diag("error updating time: no calibration", offset, 0);
    line.skip_tcal = true;
    track_time(line, offset);
}

}  // namespace ringscope::ipt
