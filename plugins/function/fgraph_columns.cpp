#include "fgraph_columns.hpp"

namespace ringscope::function {

void print_overhead(uint64_t duration, TextBuffer& out) {
    if (duration == kNoDuration)
        out.append("  ");
    else if (duration > 1000000000ull)
        out.append("$ ");
    else if (duration > 1000000ull)
        out.append("# ");
    else if (duration > 100000ull)
        out.append("! ");
    else if (duration > 10000ull)
        out.append("+ ");
    else
        out.append("  ");
}

void print_duration(uint64_t duration, TextBuffer& out) {
    const size_t start = out.size();
    out.append_uint(duration / 1000);
    // Decimals only while the number stays under 7 digits.
    if (out.size() - start < 7) out.appendf(".%03u", static_cast<unsigned>(duration % 1000));
    const size_t width = out.size() - start;
    out.append(" us ");
    if (width < 7) out.append_repeat(' ', 7 - width);
    out.append("|  ");
}

void print_indent(uint64_t depth, TextBuffer& out) {
    // (int)(depth * 2): the low 32 bits, as a signed number.
    const int n = static_cast<int>(static_cast<uint32_t>(depth * 2));
    if (n > 0) out.append_repeat(' ', static_cast<size_t>(n < kMaxIndent ? n : kMaxIndent));
}

}  // namespace ringscope::function
