#include "ipt/command.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>

#include "ipt/calls.hpp"
#include "ipt/flow.hpp"
#include "ipt/packet_summary.hpp"
#include "ipt/ptdump.hpp"
#include "ipt/sync_report.hpp"

namespace ringscope::ipt {
namespace {

void usage(std::FILE* f) {
    std::fputs(
        "usage: ringscope ipt dump [PTDUMP-OPTIONS] [-j N] FILE.pt[:FROM[-TO]]\n"
        "       ringscope ipt sync [--at OFF[,OFF...]] FILE.pt\n"
        "       ringscope ipt flow [PTXED-OPTIONS] --raw FILE[:OFF[-END]]:ADDR|--elf FILE[:BASE]... FILE.pt\n"
        "       ringscope ipt calls [--time] [--kallsyms FILE] --raw FILE[:OFF[-END]]:ADDR|--elf "
        "FILE[:BASE]... "
        "FILE.pt\n"
        "       ringscope ipt profile [--folded] [--kallsyms FILE] --raw FILE[:OFF[-END]]:ADDR|--elf "
        "FILE[:BASE]... FILE.pt\n"
        "       ringscope ipt summary [--format F] [--partial OUT.json] [-j N] FILE.pt... (or --merge "
        "PARTIAL.json...)\n",
        f);
}

// A trace.dat given where an Intel PT stream is expected: ptdump would find no PSB in it and print
// nothing. Arguments that are no file (option values, FILE:FROM-TO) are left to the subcommand.
bool refuse_trace_dat(const std::vector<std::string>& args, std::FILE* err) {
    static constexpr unsigned char kMagic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
    for (const auto& a : args) {
        // Only regular files: reading the head of a pipe would take it from the command.
        struct stat st;
        if (a.empty() || a[0] == '-' || stat(a.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        std::FILE* f = std::fopen(a.c_str(), "rb");
        if (!f) continue;
        unsigned char head[sizeof kMagic] = {};
        const bool trace_dat =
            std::fread(head, 1, sizeof head, f) == sizeof head && std::memcmp(head, kMagic, sizeof head) == 0;
        std::fclose(f);
        if (trace_dat) {
            std::fprintf(err,
                         "ringscope ipt: %s: a trace.dat file, not an Intel PT stream (ringscope report %s "
                         "reads it)\n",
                         a.c_str(), a.c_str());
            return true;
        }
    }
    return false;
}

}  // namespace

int run_command(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
    if (args.empty()) {
        usage(err);
        return 2;
    }
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if ((args[0] == "dump" || args[0] == "sync" || args[0] == "summary") && refuse_trace_dat(rest, err))
        return 1;
    if (args[0] == "dump") return ptdump_main(rest, out, err);
    if (args[0] == "sync") return sync_main(rest, out, err);
    if (args[0] == "flow") return flow_main(rest, out, err);
    if (args[0] == "calls") return calls_main(rest, out, err);
    if (args[0] == "profile") return profile_main(rest, out, err);
    if (args[0] == "summary") return summary_main(rest, out, err);
    if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
        usage(out);
        return 0;
    }
    std::fprintf(err, "ringscope ipt: unknown subcommand: %s\n", args[0].c_str());
    usage(err);
    return 2;
}

}  // namespace ringscope::ipt
