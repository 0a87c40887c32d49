// `ringscope view FILE... [--port N] [--bind ADDR] [-- REPORT-OPTIONS]`: a local web viewer
// (framework/view), and `--export OUT.html`: the same page as one offline file. The event lines
// are `report`'s own, printed by report's code for the asked range into a pipe.
#include <cstdio>
#include <cstdlib>

#include <ringscope/output_check.hpp>
#include <ringscope/selection.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/option_parsing.hpp"
#include "framework/cli/view_session.hpp"
#include "framework/view/http_server.hpp"

namespace po = boost::program_options;

namespace ringscope::cli {
int run_view(CliContext& ctx, const std::vector<std::string>& all_args) {
    po::options_description opts(
        "usage: ringscope view FILE... [--port N] [--bind ADDR] [-- REPORT-OPTIONS]\n"
        "       ringscope view --export OUT.html FILE... [-- REPORT-OPTIONS]\n\n"
        "Serves a web viewer of trace.dat files (a host and its guests, as report takes them) on\n"
        "http://ADDR:PORT/ until interrupted: CPU lanes, task states, zoom and pan, the events of a range\n"
        "as `report` prints them (with REPORT-OPTIONS), per-task run/wait/wakeup times, search.\n"
        "--export writes the same page as one offline HTML file with the data embedded.\n"
        "See framework/view/README.md.\n\nOptions");
    opts.add_options()("help,h", "this text")("port,p", po::value<unsigned>()->default_value(8080),
                                              "TCP port (0: a free one)")(
        "bind", po::value<std::string>()->default_value("127.0.0.1"), "address to listen on")(
        "export", po::value<std::string>(), "write one offline HTML file instead of serving")(
        "files", po::value<std::vector<std::string>>(), "trace.dat files");
    // What follows "--" is report's.
    std::vector<std::string> args, report_opts;
    bool rest = false;
    for (const auto& a : all_args) {
        if (!rest && a == "--") {
            rest = true;
            continue;
        }
        (rest ? report_opts : args).push_back(a);
    }
    po::positional_options_description pos;
    pos.add("files", -1);
    po::variables_map vm;
    if (int rc = parse_options(ctx, "view", opts, pos, args, vm); rc >= 0) return rc;
    if (!vm.count("files")) {
        ctx.error("view: no trace file given (see ringscope view --help)");
        return kExitUsage;
    }
    const auto files = vm["files"].as<std::vector<std::string>>();
    const unsigned port = vm["port"].as<unsigned>();
    if (port > 65535) {
        ctx.error("view: --port " + std::to_string(port) + ": not a port (0-65535)");
        return kExitUsage;
    }
    if (vm.count("export"))
        if (Status s = check_outputs({vm["export"].as<std::string>()}, files); !s) {
            ctx.error("view: " + s.error().to_string());
            return kExitUsage;
        }

    auto session = ViewSession::open(ctx, files, report_opts);
    if (!session) {
        ctx.error("view: " + session.error().to_string());
        return kExitRuntime;
    }
    view::ViewApi& api = (*session)->api();

    if (vm.count("export")) {
        const std::string out = vm["export"].as<std::string>();
        const size_t cap = ViewSession::export_cap();
        auto res = view::write_export(api, (*session)->index(), (*session)->events(), out, cap);
        if (!res) {
            ctx.error("view: " + res.error().to_string());
            return kExitRuntime;
        }
        if (res->coarser)
            std::fprintf(stderr, "%s view: %s: %s\n", ctx.program.c_str(), out.c_str(),
                         view::coarser_note(*res, cap).c_str());
        std::fprintf(stderr, "%s: %zu bytes\n", out.c_str(), res->bytes);
        return kExitOk;
    }

    auto server = view::HttpServer::listen(vm["bind"].as<std::string>(), static_cast<uint16_t>(port),
                                           [&](const std::string& target) { return api.handle(target); });
    if (!server) {
        ctx.error("view: " + server.error().to_string());
        return kExitRuntime;
    }
    std::string host = vm["bind"].as<std::string>();
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    std::printf("ringscope view: serving http://%s:%u/\n", host.c_str(), (*server)->port());
    std::fflush(stdout);
    (*server)->run(true);
    return kExitOk;
}

}  // namespace ringscope::cli
