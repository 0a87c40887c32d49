// `ringscope view FILE... [--port N] [--bind ADDR] [-- REPORT-OPTIONS]`: a local web viewer
// (framework/view), and `--export OUT.html`: the same page as one offline file. The event lines
// are `report`'s own, printed by report's code for the asked range into a pipe, on the files it
// opened for the first query (report_session.hpp).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include <ringscope/output_check.hpp>
#include <ringscope/selection.hpp>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/option_parsing.hpp"
#include "framework/cli/report_session.hpp"
#include "framework/view/http_server.hpp"
#include "framework/view/view_export.hpp"
#include "framework/view/view_marks.hpp"

namespace po = boost::program_options;

namespace ringscope::cli {
namespace {

std::string seconds_ns(uint64_t ns) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%llu.%09llu", static_cast<unsigned long long>(ns / 1000000000ull),
                  static_cast<unsigned long long>(ns % 1000000000ull));
    return buf;
}

// The time of a report line ("... [003] 1234.567890: name: ..."), in ns; false for other lines.
bool line_time(std::string_view line, uint64_t& ns) {
    size_t i = line.find("] ");
    while (i != std::string_view::npos) {
        size_t a = i + 2;
        while (a < line.size() && line[a] != ' ') ++a;  // the flags column (3.4), when there
        for (size_t start : {i + 2, a + 1}) {
            size_t colon = line.find(": ", start);
            if (colon == std::string_view::npos || colon <= start) continue;
            std::string_view t = line.substr(start, colon - start);
            while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
            if (t.find(' ') == std::string_view::npos && parse_trace_seconds(t, ns)) return true;
        }
        i = line.find("] ", i + 2);
    }
    return false;
}

// Runs report with ARGS into a pipe; keeps the first LIMIT lines after the SKIP head lines.
Expected<view::EventsAnswer> collect_report(ReportSession& session, const std::vector<std::string>& args,
                                            size_t skip, size_t limit, const ReportStart* start) {
    int fds[2];
    if (pipe(fds) != 0) return Error(Errc::io, "pipe failed");
    view::EventsAnswer ans;
    std::thread reader([&] {
        std::FILE* in = fdopen(fds[0], "r");
        std::string line;
        uint64_t last = 0, n = 0;
        char buf[1 << 16];
        while (std::fgets(buf, sizeof buf, in)) {
            line += buf;
            if (line.back() != '\n') continue;
            line.pop_back();
            if (n++ >= skip) {
                uint64_t ts = last;
                if (line_time(line, ts)) last = ts;
                if (ans.lines.size() < limit) {
                    ans.lines.push_back(line);
                    ans.ts.push_back(ts);
                }
                ++ans.total;
            }
            line.clear();
        }
        std::fclose(in);
    });
    std::FILE* out = fdopen(fds[1], "w");
    const int rc = session.run_to(args, out, start);
    std::fclose(out);
    reader.join();
    if (rc != 0)
        return Error(Errc::invalid_argument, "report exited with " + std::to_string(rc) + " (see stderr)");
    ans.truncated = ans.total > ans.lines.size();
    return ans;
}

}  // namespace

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

    // The plugins' timeline annotators (kvm: vCPU threads, exits) see the same one pass.
    std::vector<std::unique_ptr<TimelineAnnotator>> annotators;
    for (const auto& a : ctx.plugins().annotators())
        if (auto made = a.factory()) annotators.push_back(std::move(made));
    view::ViewMarks marks(std::move(annotators));
    auto index = view::ViewIndex::open(files, 16384, 16384, &marks);
    if (!index) {
        ctx.error("view: " + index.error().to_string());
        return kExitRuntime;
    }
    ReportSession session(ctx);
    view::EventsSource events = [&](const view::EventsQuery& q) {
        // One thread unless REPORT-OPTIONS say otherwise (a later -j wins): a range of the view is
        // short, and more threads parse the file's kallsyms ahead even when no line needs them.
        std::vector<std::string> a = {"-j", "1"};
        a.insert(a.end(), report_opts.begin(), report_opts.end());
        a.insert(a.end(), {"--from", seconds_ns(q.from), "--to", seconds_ns(q.to)});
        if (!q.filter.empty()) a.insert(a.end(), {"-F", q.filter});
        if (!q.cpus.empty()) {
            std::string list;
            for (int c : q.cpus) list += (list.empty() ? "" : ",") + std::to_string(c);
            a.insert(a.end(), {"--cpu", list});
        }
        for (int p : q.pids) a.insert(a.end(), {"--pid", std::to_string(p)});
        // With -i: trace-cmd 3.1.6 (--compat 3.1) reads one file after the options.
        for (const auto& f : files) a.insert(a.end(), {"-i", f});
        // Report starts each CPU at the index's bucket of q.from instead of reading from the start.
        const view::ViewIndex& ix = **index;
        const ReportStart start{
            [&ix, &q](size_t file, int cpu) { return ix.start_position(file, cpu, q.from); },
            ix.in_time_order()};
        return collect_report(session, a, files.size(), q.limit, &start);  // one "cpus=N" line per file first
    };
    view::ViewApi api(**index, files, events);
    api.set_marks(&marks);

    if (vm.count("export")) {
        const std::string out = vm["export"].as<std::string>();
        // RINGSCOPE_VIEW_EXPORT_CAP (bytes) lowers the cap: the tests' traces are far below 20 MB.
        size_t cap = view::kExportCap;
        if (const char* env = std::getenv("RINGSCOPE_VIEW_EXPORT_CAP"); env && *env)
            cap = std::strtoull(env, nullptr, 10);
        auto res = view::write_export(api, **index, events, out, cap);
        if (!res) {
            ctx.error("view: " + res.error().to_string());
            return kExitRuntime;
        }
        if (res->coarser)
            std::fprintf(
                stderr,
                "%s view: %s: kept under %zu MB: lanes at %u pixels, %zu event lines (coarser than the "
                "full detail)\n",
                ctx.program.c_str(), out.c_str(), cap, res->width, res->lines);
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
