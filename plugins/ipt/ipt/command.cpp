#include "ipt/command.hpp"

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
        "       ringscope ipt summary [--format F] [--partial OUT.json] [-j N] FILE.pt... (or --merge "
        "PARTIAL.json...)\n",
        f);
}

}  // namespace

int run_command(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
    if (args.empty()) {
        usage(err);
        return 2;
    }
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "dump") return ptdump_main(rest, out, err);
    if (args[0] == "sync") return sync_main(rest, out, err);
    if (args[0] == "flow") return flow_main(rest, out, err);
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
