// printf conversions as glibc prints them, for the values libtraceevent passes: integers already
// cast to the conversion's length, strings. The common specs are formatted here directly; the
// rest go through vsnprintf with the same spec, so the output is glibc's in every case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <ringscope/text_buffer.hpp>

#include "framework/format/print_program.hpp"
#include "framework/output/number_format.hpp"

namespace ringscope::format {

// Widths and precisions as the kernel's vsprintf clamps them (FIELD_WIDTH_MAX, PRECISION_MAX):
// a width of 2147483647 (`%*d` or written out) would take 2 GB per event.
inline constexpr int kFieldWidthMax = (1 << 23) - 1;
inline constexpr int kPrecisionMax = (1 << 15) - 1;

// Digests a conversion ("%-08lx", "%.*s") into a Spec; spec.simple says whether it was understood.
// A written width or precision above the kernel's maximum counts as that maximum.
Spec parse_spec(std::string_view conversion);
// The conversion with a written width or precision above the kernel's maximum replaced by it,
// for the conversions that go through vsnprintf.
std::string clamp_conversion(std::string_view conversion);
// A `*` argument as the kernel clamps it: the width (when the spec's width is `*`) or else the
// precision.
int clamp_star(const Spec& spec, int star) noexcept;

// printf(conversion, [star,] value) where value has the C type libtraceevent passes for ls
// (-2 char, -1 short, 0 int, 1 long, 2 long long); star is used when the spec has a '*'.
void format_int(TextBuffer& out, const Segment& seg, int star, uint64_t value);
// printf(conversion, [star,] str) for a %s conversion; str need not be NUL-terminated.
void format_str(TextBuffer& out, const Segment& seg, int star, std::string_view str);

// The same into a caller's memory, for specs that are simple, have no '*' and a width and a
// precision of at most kMaxBoundedWidth (bounded_spec says which): at most int_room(spec) bytes
// for an integer, max(width, str.size()) for a string.
inline constexpr int kMaxBoundedWidth = 256;
bool bounded_spec(const Spec& spec) noexcept;
inline size_t int_room(const Spec& spec) noexcept {
    return static_cast<size_t>(spec.width > spec.prec ? spec.width : spec.prec > 0 ? spec.prec : 0) + 32;
}
// %d %i %u %x %X without flags, width or precision (spec.plain): most print fmt conversions.
inline size_t write_plain_int(char* p, char conv, int ls, uint64_t v) noexcept {
    const int bits = ls <= -2 ? 8 : ls == -1 ? 16 : ls == 0 ? 32 : 64;
    if (bits < 64) v &= (uint64_t{1} << bits) - 1;
    if (conv == 'x' || conv == 'X') return output::write_hex(p, v, conv == 'X');
    if (conv == 'u') return output::write_u64(p, v);
    const int64_t sv =
        bits == 64 ? static_cast<int64_t>(v) : static_cast<int64_t>(v << (64 - bits)) >> (64 - bits);
    return output::write_i64(p, sv);
}
size_t write_int(char* dst, const Spec& spec, int ls, uint64_t value) noexcept;
size_t write_str(char* dst, const Spec& spec, std::string_view str) noexcept;

}  // namespace ringscope::format
