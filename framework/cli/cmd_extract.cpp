// `ringscope extract [-B INSTANCE] [-o FILE] [--compression C]`: what the buffers hold now.
#include <boost/program_options.hpp>

#include <ringscope/output_check.hpp>

#include "framework/capture/recorder.hpp"
#include "framework/cli/capture_args.hpp"
#include "framework/cli/cli_context.hpp"
#include "framework/cli/option_parsing.hpp"
#include "framework/cli/tracefs_commands.hpp"

namespace po = boost::program_options;

namespace ringscope::cli {

int run_extract(CliContext& ctx, const std::vector<std::string>& args) {
    po::options_description opts(
        "usage: ringscope extract [-B INSTANCE]... [-a] [-t] [-o FILE] [--compression none|zlib|zstd]\n\n"
        "Saves the events the ring buffers hold now into a trace.dat (version 7), consuming them, as\n"
        "trace-cmd extract does. The tracing state is left as it is.\n\nOptions");
    opts.add_options()("help,h", "this text")("instance,B", po::value<std::vector<std::string>>(),
                                              "an existing instance (repeatable); the top buffer is left out "
                                              "unless -t")(
        "all,a", "every instance (without the top buffer unless -t)")("top,t", "the top buffer too")(
        "output,o", po::value<std::string>()->default_value("trace.dat"), "output file")(
        "compression", po::value<std::string>()->default_value("zstd"), "none, zlib or zstd")("quiet,q",
                                                                                              "no summary");
    po::positional_options_description pos;
    po::variables_map vm;
    if (int rc = parse_options(ctx, "extract", opts, pos, args, vm); rc >= 0) return rc;
    capture::ExtractOptions o;
    if (vm.count("instance")) o.instances = vm["instance"].as<std::vector<std::string>>();
    o.all = vm.count("all") > 0;
    o.top = vm.count("top") > 0;
    o.output = vm["output"].as<std::string>();
    // "-" would be a file named "-" here: only a regular file (or a new one) is written.
    if (Status s = check_outputs({o.output == "-" ? "./-" : o.output}, {}); !s) {
        ctx.error("extract: " + s.error().to_string());
        return kExitUsage;
    }
    if (!parse_compression(vm["compression"].as<std::string>(), o.compression)) {
        ctx.error("extract: unknown compression '" + vm["compression"].as<std::string>() +
                  "' (none, zlib or zstd)");
        return kExitUsage;
    }
    if (vm.count("quiet")) o.log = nullptr;
    recover_tracing_state(ctx);
    auto r = capture::extract(o);
    if (!r) {
        ctx.error("extract: " + r.error().to_string());
        return kExitRuntime;
    }
    return kExitOk;
}

}  // namespace ringscope::cli
