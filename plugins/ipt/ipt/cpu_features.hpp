// Which vector instructions the decoder may use. The searches and packet walks check the CPU
// once; RINGSCOPE_IPT_NO_AVX512=1 in the environment makes them take their AVX2, SSE2 or portable
// paths instead, to time or test those on a machine that has AVX-512.
#pragma once

#include <cstdlib>

namespace ringscope::ipt {

inline bool avx512_allowed() noexcept {
    const char* v = std::getenv("RINGSCOPE_IPT_NO_AVX512");
    return !v || !*v || (v[0] == '0' && v[1] == 0);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// AVX2, which RINGSCOPE_IPT_NO_AVX512 leaves on.
inline bool cpu_has_avx2() noexcept {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#endif

}  // namespace ringscope::ipt
