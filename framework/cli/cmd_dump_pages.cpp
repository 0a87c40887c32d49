// `ringscope dump-pages FILE [SUBBUF_SIZE] [--long-size 4|8]`: the sub-buffers of a raw
// trace_pipe_raw capture.
#include <boost/program_options.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/option_parsing.hpp"
#include "framework/ringbuffer/page_dump.hpp"

namespace po = boost::program_options;

namespace ringscope::cli {

int run_dump_pages(CliContext& ctx, const std::vector<std::string>& args) {
    po::options_description opts(
        "usage: ringscope dump-pages FILE [SUBBUF_SIZE] [--long-size 4|8]\n\n"
        "Walks every sub-buffer of a raw per-CPU capture (per_cpu/cpuN/trace_pipe_raw) and prints its\n"
        "header and events. SUBBUF_SIZE defaults to the page size; the long size of the kernel that\n"
        "wrote it (the header's commit word: 4 on 32-bit kernels) is found from the data when not\n"
        "given (this machine's when the data does not tell).\n\nOptions");
    opts.add_options()("help,h", "this text")("file", po::value<std::string>()->required(), "capture file")(
        "subbuf-size", po::value<size_t>()->default_value(0), "sub-buffer size in bytes")(
        "long-size", po::value<unsigned>()->default_value(0), "4 or 8 (default: from the data)");
    po::positional_options_description pos;
    pos.add("file", 1).add("subbuf-size", 1);
    po::variables_map vm;
    if (int rc = parse_options(ctx, "dump-pages", opts, pos, args, vm); rc >= 0) return rc;
    const unsigned long_size = vm["long-size"].as<unsigned>();
    if (long_size != 0 && long_size != 4 && long_size != 8) {
        std::fprintf(stderr, "%s dump-pages: --long-size takes 4 or 8, not %u\n", ctx.program.c_str(),
                     long_size);
        return kExitUsage;
    }
    return ringbuffer::dump_pages(vm["file"].as<std::string>(), vm["subbuf-size"].as<size_t>(), long_size,
                                  stdout, stderr);
}

}  // namespace ringscope::cli
