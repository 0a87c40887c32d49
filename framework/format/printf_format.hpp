// printf conversions as glibc prints them, for the values libtraceevent passes: integers already
// cast to the conversion's length, strings. The common specs are formatted here directly; the
// rest go through vsnprintf with the same spec, so the output is glibc's in every case.
#pragma once

#include <cstdint>
#include <string_view>

#include <ringscope/text_buffer.hpp>

#include "framework/format/print_program.hpp"

namespace ringscope::format {

// Digests a conversion ("%-08lx", "%.*s") into a Spec; spec.simple says whether it was understood.
Spec parse_spec(std::string_view conversion);

// printf(conversion, [star,] value) where value has the C type libtraceevent passes for ls
// (-2 char, -1 short, 0 int, 1 long, 2 long long); star is used when the spec has a '*'.
void format_int(TextBuffer& out, const Segment& seg, int star, uint64_t value);
// printf(conversion, [star,] str) for a %s conversion; str need not be NUL-terminated.
void format_str(TextBuffer& out, const Segment& seg, int star, std::string_view str);

}  // namespace ringscope::format
