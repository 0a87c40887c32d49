// `ringscope ipt flow`'s arguments, as ptxed takes them: the trace, the code image and the
// decoder's options (FlowOptions).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ipt/flow_driver.hpp"
#include "ipt/image.hpp"

namespace ringscope::ipt {

class Symbols;

// What ipt flow reads: the trace (FILE[:FROM[-TO]]) and the code image.
struct FlowInputs {
    std::string pt;
    uint64_t pt_offset = 0, pt_size = 0;
    bool have_pt = false;
    Image image;
};

// `--raw FILE[:OFF[-END]]:ADDR` and `--elf FILE[:BASE]` (ptxed's syntax) added to image: 0, 1 (a
// file that does not load) or 2 (a bad argument), the message printed after prog; -1 when a is
// neither option. With symbols, an ELF file's function symbols are added to them.
int image_option(const char* prog, const std::string& a, const std::string& v, Image& image, std::FILE* err,
                 Symbols* symbols = nullptr);

// The same without printing: a = "--raw" or "--elf" (another is taken as --elf); *bad (if
// given) is set when v does not parse.
Status add_image_arg(const std::string& a, const std::string& v, Image& image, Symbols* symbols,
                     bool* bad = nullptr);

// ptxed's argument list into o and in: -1 when the flow is to be decoded, else the exit code (0
// after --help, 1 a file that does not load, 2 a usage error), its message printed.
int parse_flow_args(const std::vector<std::string>& args, FlowOptions& o, FlowInputs& in, std::FILE* out,
                    std::FILE* err);

}  // namespace ringscope::ipt
