// Time estimation from TSC, TMA, MTC and CYC, and the calibration of CYC against them, as libipt
// estimates it (pt_time / pt_time_cal).
#pragma once

#include <cstdint>

#include "ipt/config.hpp"
#include "ipt/errors.hpp"
#include "ipt/packet.hpp"

namespace ringscope::ipt {

inline constexpr unsigned kFcrShift = 8;  // fcr values are fixed point with this many fraction bits

struct TimeState {
    uint64_t tsc = 0;      // the estimated TSC
    uint64_t base = 0;     // the TSC at the last TSC or MTC, minus TMA's fast counter
    uint64_t fc = 0;       // the fast counter since the last TSC/MTC
    uint32_t ctc = 0;      // the CTC of the last MTC (or TMA)
    uint32_t ctc_cyc = 0;  // the CTC at the last fast counter reset
    uint32_t lost_mtc = 0, lost_cyc = 0;
    uint8_t cbr = 0;
    bool have_tsc = false, have_tma = false, have_mtc = false, have_cbr = false;

    bool operator==(const TimeState&) const = default;
    void init() noexcept { *this = TimeState{}; }
    // 0, or -pte_no_time before any TSC (tsc is still set: relative time).
    int query_tsc(uint64_t* out, uint32_t* lmtc, uint32_t* lcyc) const noexcept {
        if (!out) return -pte_internal;
        *out = tsc;
        if (lmtc) *lmtc = lost_mtc;
        if (lcyc) *lcyc = lost_cyc;
        return have_tsc ? 0 : -pte_no_time;
    }
    int query_cbr(uint32_t* out) const noexcept {
        if (!out) return -pte_internal;
        if (!have_cbr) return -pte_no_cbr;
        *out = cbr;
        return 0;
    }
    int update_tsc(uint64_t tsc) noexcept;
    int update_cbr(uint8_t ratio) noexcept;
    int update_tma(const PacketTma& tma, const Config& config) noexcept;
    int update_mtc(uint8_t ctc, const Config& config) noexcept;
    int update_cyc(uint64_t cyc, const Config& config, uint64_t fcr) noexcept;
};

struct TimeCal {
    uint64_t fcr = 0, min_fcr = ~0ull, max_fcr = 0;
    uint64_t tsc = 0, cyc_tsc = 0, cyc_mtc = 0;
    uint32_t ctc = 0, lost_mtc = 0;
    bool have_mtc = false, check_skl168 = false;

    bool operator==(const TimeCal&) const = default;
    void init() noexcept { *this = TimeCal{}; }
    bool have_fcr() const noexcept { return min_fcr <= max_fcr; }
    int get_fcr(uint64_t& out) const noexcept;
    int set_fcr(uint64_t value) noexcept;
    int update_psb(const Config& config) noexcept;
    int update_tsc(uint64_t tsc) noexcept;
    int header_tsc(uint64_t tsc) noexcept;
    int update_cbr(uint8_t ratio, const Config& config) noexcept;
    int header_cbr(uint8_t ratio, const Config& config) noexcept;
    int update_mtc(uint8_t ctc, const Config& config) noexcept;
    int update_cyc(uint64_t cyc) noexcept;
    int update_ovf() noexcept;
};

// Errors from configuration problems only make timing imprecise: libipt ignores them.
inline int timing_error(int err) noexcept {
    return (err < 0 && err != -pte_bad_config) ? err : 0;
}

}  // namespace ringscope::ipt
