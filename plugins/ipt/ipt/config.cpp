#include "ipt/config.hpp"

#include <climits>
#include <cstdlib>
#include <initializer_list>

#include "ipt/errors.hpp"

namespace ringscope::ipt {
namespace {

bool in(uint8_t model, std::initializer_list<uint8_t> models) {
    for (uint8_t m : models)
        if (m == model) return true;
    return false;
}

}  // namespace

int cpu_errata(Errata& e, const Cpu& cpu) noexcept {
    e = Errata{};
    if (cpu.vendor != CpuVendor::intel) return -pte_bad_cpu;
    if (cpu.family == 0x6) {
        uint8_t m = cpu.model;
        if (in(m, {0x3d, 0x47, 0x4f, 0x56})) {
            e.bdm70 = e.bdm64 = true;
            return 0;
        }
        if (in(m, {0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6})) {
            e.bdm70 = e.skd007 = e.skd022 = e.skd010 = e.skl014 = e.skl168 = true;
            return 0;
        }
        if (in(m, {0x55, 0x6a, 0x6c, 0x8f, 0xad, 0xae, 0xcf})) {
            e.bdm70 = e.skl014 = e.skd022 = e.skz84 = true;
            return 0;
        }
        if (in(m, {0x66, 0x7d, 0x7e, 0x8c, 0x8d, 0xa7, 0xa8})) {
            e.bdm70 = e.skl014 = e.skd022 = true;
            return 0;
        }
        if (in(m, {0x97, 0x9a, 0xbf, 0xb7, 0xb5, 0xaa, 0xac, 0xba, 0xcc, 0xbd, 0xc5, 0xc6})) {
            e.bdm70 = e.skl014 = e.skd022 = e.apl11 = true;
            return 0;
        }
        if (in(m, {0x5c, 0x5f})) {
            e.apl12 = e.apl11 = true;
            return 0;
        }
        if (m == 0xd5) {
            // Newer cores libipt master lists (its test corpus runs them with these errata).
            e.bdm70 = e.skd022 = e.apl11 = true;
            return 0;
        }
        if (in(m, {0x7a, 0x86, 0x96, 0x9c, 0xb6, 0xaf, 0xdd})) {
            e.apl11 = true;
            return 0;
        }
    } else if (cpu.family == 0x12 && (cpu.model == 0x01 || cpu.model == 0x03)) {
        e.bdm70 = e.skd022 = e.apl11 = true;
        return 0;
    } else if (cpu.family == 0x13 && cpu.model == 0x01) {
        e.bdm70 = e.skl014 = e.skd022 = e.skz84 = true;
        return 0;
    }
    return -pte_bad_cpu;
}

int cpu_parse(Cpu& cpu, const char* s) noexcept {
    if (!s) return -pte_invalid;
    char* endp = nullptr;
    long family = std::strtol(s, &endp, 0);
    if (s == endp || *endp != '/') return -pte_invalid;
    if (family < 0 || family > USHRT_MAX) return -pte_invalid;
    s = endp + 1;
    long model = std::strtol(s, &endp, 0);
    if (s == endp || (*endp != '\0' && *endp != '/')) return -pte_invalid;
    if (model < 0 || model > UCHAR_MAX) return -pte_invalid;
    long stepping = 0;
    if (*endp != '\0') {
        s = endp + 1;
        stepping = std::strtol(s, &endp, 0);
        if (*endp != '\0') return -pte_invalid;
        if (stepping < 0 || stepping > UCHAR_MAX) return -pte_invalid;
    }
    cpu.vendor = CpuVendor::intel;
    cpu.family = static_cast<uint16_t>(family);
    cpu.model = static_cast<uint8_t>(model);
    cpu.stepping = static_cast<uint8_t>(stepping);
    return 0;
}

}  // namespace ringscope::ipt
