// `ringscope ipt flow`: the instructions an Intel PT trace ran, with ptxed's arguments and output
// (instruction addresses or disassembly, events in brackets, errors as [OFFSET, IP: KIND: TEXT],
// statistics), from the instruction flow decoder and a code image.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace ringscope::ipt {

// The whole command; exit code 0, 1 (a file that does not load) or 2 (usage error).
int flow_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace ringscope::ipt
