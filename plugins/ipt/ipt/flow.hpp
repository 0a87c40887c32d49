// `ringscope ipt flow`: the instructions an Intel PT trace ran, with ptxed's arguments and output
// (instruction addresses or disassembly, events in brackets, errors as [OFFSET, IP: KIND: TEXT],
// statistics), from the instruction flow decoder and a code image.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "ipt/image.hpp"

namespace ringscope::ipt {

class Symbols;

// `--raw FILE[:OFF[-END]]:ADDR` and `--elf FILE[:BASE]` (ptxed's syntax) added to image: 0, 1 (a
// file that does not load) or 2 (a bad argument), the message printed after prog; -1 when a is
// neither option. With symbols, an ELF file's function symbols are added to them.
int image_option(const char* prog, const std::string& a, const std::string& v, Image& image, std::FILE* err,
                 Symbols* symbols = nullptr);

// The whole command; exit code 0, 1 (a file that does not load) or 2 (usage error).
int flow_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace ringscope::ipt
