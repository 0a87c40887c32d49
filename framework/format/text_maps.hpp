// The small text sections of a trace: printk formats (`0xADDR : "string"` lines, for bprint and
// for %s of a pointer to a constant string) and saved cmdlines (`PID COMM` lines).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include <ringscope/error.hpp>

namespace ringscope::format {

using PrintkMap = std::unordered_map<uint64_t, std::string>;
using CmdlineMap = std::unordered_map<int, std::string>;

// Adds every line to out as libtraceevent's tep_parse_printk_formats() does (the quotes and a
// trailing "\n" are stripped; the first entry of an address wins). A line without ':' is an error
// naming its line; lines before it are kept.
Status parse_printk_formats(std::string_view text, PrintkMap& out);

// Adds every "PID COMM" line as tep_parse_saved_cmdlines() does (the first comm of a pid wins).
// libtraceevent stops at the first line that does not parse: so does this, with an error.
Status parse_saved_cmdlines(std::string_view text, CmdlineMap& out);

}  // namespace ringscope::format
