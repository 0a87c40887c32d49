#include "ipt/timing.hpp"

namespace ringscope::ipt {
namespace {

constexpr unsigned kMtcBits = 8;
constexpr unsigned kTmaCtcBits = 16;
constexpr uint32_t kTmaCtcMask = (1u << kTmaCtcBits) - 1;

// CTC distance, correcting a single wrap-around of the bits MTC provides. Shift counts are taken
// mod 32 as the hardware does, so that no configuration value is undefined behaviour.
int ctc_delta(uint32_t& delta, uint32_t ctc, uint32_t last_ctc, const Config& config) noexcept {
    if (ctc < last_ctc) {
        ctc += 1u << ((config.mtc_freq + kMtcBits) & 31);
        if (ctc < last_ctc) return -pte_bad_packet;
    }
    delta = ctc - last_ctc;
    return 0;
}

// CTC in fast-counter units: ctc * ebx / eax of cpuid leaf 0x15.
int ctc_to_fc(uint64_t& fc, uint64_t ctc, const Config& config) noexcept {
    uint32_t eax = config.cpuid_0x15_eax, ebx = config.cpuid_0x15_ebx;
    if (!eax || !ebx) return -pte_bad_config;
    fc = (ctc * ebx) / eax;
    return 0;
}

}  // namespace

int TimeState::update_tsc(uint64_t value) noexcept {
    have_tsc = true;
    have_tma = false;
    have_mtc = false;
    tsc = base = value;
    ctc = 0;
    fc = 0;
    lost_mtc = 0;
    lost_cyc = 0;
    return 0;
}

int TimeState::update_cbr(uint8_t ratio) noexcept {
    if (!ratio) return -pte_bad_packet;
    have_cbr = true;
    cbr = ratio;
    return 0;
}

int TimeState::update_tma(const PacketTma& tma, const Config& config) noexcept {
    if (!have_tsc) return -pte_bad_context;
    if (have_tma) return -pte_bad_context;
    if (have_mtc) return -pte_internal;
    uint32_t mtc_hi = config.mtc_freq + kMtcBits;
    uint32_t ctc_mask = mtc_hi >= 32 ? ~0u : (1u << mtc_hi) - 1u;
    have_tma = true;
    base -= tma.fc;
    fc += tma.fc;
    // TMA provides the full CTC when the MTC frequency is low enough: it then serves as an MTC.
    if (mtc_hi <= kTmaCtcBits) have_mtc = true;
    ctc = ctc_cyc = tma.ctc & ctc_mask;
    return 0;
}

int TimeState::update_mtc(uint8_t mtc, const Config& config) noexcept {
    bool had_tsc = have_tsc, had_tma = have_tma, had_mtc = have_mtc;
    // MTCs between TSC and TMA are ignored to avoid apparent CTC overflows.
    if (had_tsc && !had_tma) return 0;
    uint64_t b = base;
    uint32_t last_ctc = ctc;
    uint8_t freq = config.mtc_freq;
    uint32_t c = static_cast<uint32_t>(mtc) << (freq & 31);
    if (fc || lost_cyc || !had_mtc) ctc_cyc = c;
    have_mtc = true;
    fc = 0;
    ctc = c;
    lost_cyc = 0;
    if (!had_mtc) {
        // Without a TMA, the first MTC only starts the count.
        if (!had_tma) return 0;
        if (last_ctc & ~kTmaCtcMask) return -pte_internal;
        uint32_t ctc_lo = c & kTmaCtcMask;
        uint32_t ctc_hi = c & ~kTmaCtcMask;
        // Estimate the CTC bits TMA did not give from this MTC.
        if (ctc_lo < last_ctc) {
            ctc_hi -= 1u << kTmaCtcBits;
            ctc_hi &= 0xffu << (freq & 31);
        }
        last_ctc |= ctc_hi;
    }
    uint32_t delta = 0;
    int err = ctc_delta(delta, c, last_ctc, config);
    if (err < 0) {
        lost_mtc += 1;
        return err;
    }
    uint64_t t = 0;
    err = ctc_to_fc(t, delta, config);
    if (err < 0) return err;
    b += t;
    tsc = base = b;
    return 0;
}

int TimeState::update_cyc(uint64_t cyc, const Config& config, uint64_t fcr) noexcept {
    if (!fcr) {
        lost_cyc += 1;
        return 0;
    }
    uint64_t f = fc;
    if (!f && ctc != ctc_cyc) {
        // A CYC spanning MTC periods: take off the estimated cycles of the earlier periods.
        uint32_t delta = 0;
        int err = ctc_delta(delta, ctc, ctc_cyc, config);
        if (err < 0) return err;
        uint64_t efc = 0;
        err = ctc_to_fc(efc, delta, config);
        if (err < 0) return err;
        uint64_t old_cyc = (efc << kFcrShift) / fcr;
        uint64_t total = cyc < old_cyc ? old_cyc : cyc;
        cyc = total - old_cyc;
    }
    f += (cyc * fcr) >> kFcrShift;
    fc = f;
    tsc = base + f;
    return 0;
}

int TimeCal::get_fcr(uint64_t& out) const noexcept {
    if (!have_fcr()) return -pte_no_time;
    out = fcr;
    return 0;
}

int TimeCal::set_fcr(uint64_t value) noexcept {
    fcr = value;
    if (value < min_fcr) min_fcr = value;
    if (value > max_fcr) max_fcr = value;
    return 0;
}

int TimeCal::update_psb(const Config& config) noexcept {
    if (config.errata.skl168) check_skl168 = true;
    return 0;
}

int TimeCal::update_tsc(uint64_t value) noexcept {
    // A TSC outside PSB+ may follow lost time: keep it for the next header TSC only.
    tsc = value;
    cyc_tsc = 0;
    return 0;
}

int TimeCal::header_tsc(uint64_t value) noexcept {
    uint64_t last_tsc = tsc, cyc = cyc_tsc;
    tsc = value;
    cyc_tsc = 0;
    if (!last_tsc || !cyc) return 0;
    if (have_mtc) return 0;  // MTC calibrates better
    if (value < last_tsc) {
        value += 1ull << 56;
        if (value < last_tsc) return -pte_bad_packet;
    }
    uint64_t delta = value - last_tsc;
    if (delta & ~(~0ull >> kFcrShift)) return -pte_internal;
    return set_fcr((delta << kFcrShift) / cyc);
}

int TimeCal::update_cbr(uint8_t ratio, const Config& config) noexcept {
    // A CBR outside PSB+ is a frequency change: start over.
    init();
    return header_cbr(ratio, config);
}

int TimeCal::header_cbr(uint8_t ratio, const Config& config) noexcept {
    uint64_t p1 = config.nom_freq;
    if (!p1) return 0;
    if (!ratio) return -pte_bad_packet;
    return set_fcr((p1 << kFcrShift) / ratio);
}

int TimeCal::update_mtc(uint8_t mtc, const Config& config) noexcept {
    uint32_t last_ctc = ctc;
    bool had_mtc = have_mtc;
    uint64_t cyc = cyc_mtc;
    bool skl168 = check_skl168;
    check_skl168 = false;
    uint32_t c = static_cast<uint32_t>(mtc) << (config.mtc_freq & 31);
    if (!had_mtc) {
        cyc_mtc = 0;
        ctc = c;
        have_mtc = true;
        return 0;
    }
    if (!cyc) return 0;  // spread the cycles over the combined period at the next MTC
    have_mtc = true;
    cyc_mtc = 0;
    ctc = c;
    lost_mtc += 1;  // corrected at the end
    uint32_t delta = 0;
    int err = ctc_delta(delta, c, last_ctc, config);
    if (err < 0) return err;
    uint64_t fc = 0;
    err = ctc_to_fc(fc, delta, config);
    if (err < 0) return err;
    if (fc & ~(~0ull >> kFcrShift)) return -pte_internal;
    uint64_t value = (fc << kFcrShift) / cyc;
    if (skl168) {
        // SKL168: CYC packets may be dropped right before PSB; skip a suspicious first MTC.
        if ((1u << (config.mtc_freq & 31)) < delta) return 0;
        if (config.mtc_freq < 10 && have_fcr()) {
            uint64_t dfc = (fcr * (cyc + 0xf00)) >> kFcrShift;
            if (dfc < fc) return 0;
        }
    }
    err = set_fcr(value);
    if (err < 0) return err;
    lost_mtc = 0;
    return 0;
}

int TimeCal::update_cyc(uint64_t cyc) noexcept {
    cyc_mtc += cyc;
    cyc_tsc += cyc;
    return 0;
}

int TimeCal::update_ovf() noexcept {
    tsc = 0;
    cyc_tsc = 0;
    cyc_mtc = 0;
    ctc = 0;
    have_mtc = false;
    return 0;
}

}  // namespace ringscope::ipt
