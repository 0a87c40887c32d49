// `ringscope ipt calls` and `ringscope ipt profile`: what the instruction flow says about
// functions. calls prints the calls and returns as a tree (function_graph's shape: `name() {`,
// `}` when it returns), with the TSC where the trace has timing packets (--time); profile counts
// the instructions each function ran itself (with --time the TSC ticks they took), as a table or
// as folded stacks for flame graphs (--folded). Names come from the function symbols of --elf
// files and from --kallsyms (a file in /proc/kallsyms' format, or a trace.dat's kallsyms); the
// code from ptxed's --raw and --elf.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace ringscope::ipt {

// Exit code 0, 1 (a file that does not load) or 2 (usage error).
int calls_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);
int profile_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace ringscope::ipt
