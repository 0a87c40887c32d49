// The duration columns of trace-cmd's function_graph lines (libtracecmd's print_graph_overhead
// and print_graph_duration), shared by entry (leaf) and exit lines.
#pragma once

#include <cstdint>

#include <ringscope/text_buffer.hpp>

namespace ringscope::function {

// No duration (a nested entry): the overhead column is blank.
inline constexpr uint64_t kNoDuration = ~uint64_t{0};

// The mark of a duration in ns and a blank: "$ " over 1 s, "# " over 1 ms, "! " over 100 us,
// "+ " over 10 us, else (and for kNoDuration) two blanks. trace-cmd has no "*" or "@" (the
// kernel's marks for 10 ms and 100 ms): those durations get "#".
void print_overhead(uint64_t duration, TextBuffer& out);

// The duration in us with three decimals ("75.516"; only the integer part from 7 digits on),
// " us ", blanks up to 7 columns of number, then "|  ".
void print_duration(uint64_t duration, TextBuffer& out);

// The indent of a call at DEPTH: two blanks a level, as trace-cmd counts them (depth * 2 cut to
// an int: nothing when that is negative). Capped at kMaxIndent: a corrupt depth would otherwise
// make a line of up to 2 GB.
inline constexpr int kMaxIndent = 1 << 16;
void print_indent(uint64_t depth, TextBuffer& out);

}  // namespace ringscope::function
