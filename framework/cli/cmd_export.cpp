// `ringscope export --to clickhouse://HOST:PORT/DB [--user U --password-file F] [-j N] FILE...`:
// streams the events of trace files into ClickHouse, exactly once per file (framework/export).
#include <boost/program_options.hpp>

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include "framework/cli/cli_context.hpp"
#include "framework/cli/option_parsing.hpp"
#include "framework/export/export_progress.hpp"
#include "framework/export/file_exporter.hpp"
#include "framework/io/mapped_file.hpp"
#include "framework/sinks/progress_bar.hpp"

namespace po = boost::program_options;

namespace ringscope::cli {
namespace {

Expected<std::string> read_password(const std::string& path) {
    std::ifstream in(path);
    if (!in) return Error(Errc::io, "cannot read the password file").in_file(path);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
}

// The test hook of FileExportOptions::fail_after_batches.
uint64_t fail_after_batches_from_env() {
    const char* v = std::getenv("RINGSCOPE_EXPORT_FAIL_AFTER_BATCHES");
    return v ? std::strtoull(v, nullptr, 10) : 0;
}

}  // namespace

int run_export(CliContext& ctx, const std::vector<std::string>& args) {
    po::options_description opts(
        "usage: ringscope export --to clickhouse://HOST[:PORT][/DB] [--user U --password-file F] [-j N] "
        "FILE...\n\n"
        "Streams every event of each trace file into ClickHouse over its HTTP interface (Native blocks,\n"
        "zlib-compressed batches) and creates DB.events and DB.files when absent. Exactly once: a file\n"
        "already in DB.files is skipped; an interrupted export is redone from scratch on the next run.\n"
        "A server that is down, stalls or answers 500/502/503/504 is retried with exponential back-off;\n"
        "other answers (4xx) are not. A file that fails leaves no rows behind (its partition is dropped).\n"
        "Columns and query examples: framework/export/README.md.\n\nOptions");
    opts.add_options()("help,h", "this text")(
        "to", po::value<std::string>(), "clickhouse://HOST[:PORT][/DB]")("user", po::value<std::string>(),
                                                                         "ClickHouse user (HTTP basic auth)")(
        "password-file", po::value<std::string>(), "file whose first line is the password")(
        "jobs,j", po::value<unsigned>()->default_value(1), "files exported in parallel")(
        "connections", po::value<unsigned>()->default_value(2), "INSERTs in flight per file")(
        "batch-rows", po::value<size_t>()->default_value(262144),
        "events per INSERT (each makes a MergeTree part)")(
        "retries", po::value<int>()->default_value(5),
        "retries of a failed request (back-off 0.25 s, doubling)")(
        "read-timeout", po::value<double>()->default_value(60),
        "seconds without a byte from the server before a request fails")(
        "deadline", po::value<double>()->default_value(600), "seconds a request may last in all")(
        "quiet,q", "no progress line and no per-file lines")("files", po::value<std::vector<std::string>>(),
                                                             "trace files");
    po::positional_options_description pos;
    pos.add("files", -1);
    po::variables_map vm;
    if (int rc = parse_options(ctx, "export", opts, pos, args, vm); rc >= 0) return rc;
    if (!vm.count("to")) {
        ctx.error("export: --to clickhouse://HOST:PORT/DB is required (see ringscope export --help)");
        return kExitUsage;
    }
    if (!vm.count("files")) {
        ctx.error("export: no trace file given (see ringscope export --help)");
        return kExitUsage;
    }
    auto url = exporter::ClickHouseUrl::parse(vm["to"].as<std::string>());
    if (!url) {
        ctx.error("export: --to " + url.error().to_string());
        return kExitUsage;
    }
    const unsigned jobs = vm["jobs"].as<unsigned>();
    const unsigned connections = vm["connections"].as<unsigned>();
    const size_t batch_rows = vm["batch-rows"].as<size_t>();
    const int retries = vm["retries"].as<int>();
    if (jobs == 0 || connections == 0 || batch_rows == 0 || retries < 0) {
        ctx.error("export: -j, --connections and --batch-rows must be at least 1, --retries at least 0");
        return kExitUsage;
    }
    const double read_timeout = vm["read-timeout"].as<double>(), deadline = vm["deadline"].as<double>();
    if (!(read_timeout >= 1 && read_timeout <= 86400) || !(deadline >= 1 && deadline <= 86400)) {
        ctx.error("export: --read-timeout and --deadline are seconds from 1 to 86400");
        return kExitUsage;
    }
    exporter::Credentials credentials;
    if (vm.count("user")) credentials.user = vm["user"].as<std::string>();
    if (vm.count("password-file")) {
        auto pw = read_password(vm["password-file"].as<std::string>());
        if (!pw) {
            ctx.error("export: " + pw.error().to_string());
            return kExitRuntime;
        }
        credentials.password = std::move(*pw);
    }
    const std::vector<std::string> files = vm["files"].as<std::vector<std::string>>();
    const bool quiet = vm.count("quiet") > 0;

    uint64_t total_bytes = 0;
    for (const auto& f : files) {
        auto m = io::MappedFile::open(f);
        if (!m) {
            ctx.error("export: " + std::move(m).error().in_file(f).to_string());
            return kExitRuntime;
        }
        total_bytes += (*m)->size();
    }

    exporter::RetryPolicy policy;
    policy.attempts = retries + 1;
    policy.read_timeout = std::chrono::milliseconds(static_cast<int64_t>(read_timeout * 1000));
    policy.deadline = std::chrono::milliseconds(static_cast<int64_t>(deadline * 1000));
    exporter::ExportCounters counters;
    exporter::ExportProgress progress(counters, files.size(), total_bytes, !quiet);
    auto say = [&](std::FILE* out, const std::string& line) {
        std::lock_guard lock(progress.output_mutex());
        progress.clear_line();
        std::fprintf(out, "%s\n", line.c_str());
    };
    auto retry_log = [&](const std::string& m) { say(stderr, ctx.program + " export: " + m); };
    auto connect = [&]() { return exporter::HttpClient::create(*url, credentials, policy, retry_log); };

    const exporter::ClickHouseSchema schema(url->database);
    {
        auto client = connect();
        if (!client) {
            ctx.error("export: " + client.error().to_string());
            return kExitRuntime;
        }
        for (const std::string& sql :
             {schema.create_database(), schema.create_events(), schema.create_files()}) {
            if (auto r = client->query(sql); !r) {
                say(stderr, ctx.program + " export: " + r.error().to_string());
                return kExitRuntime;
            }
        }
    }

    exporter::FileExportOptions file_options;
    file_options.batch_rows = batch_rows;
    file_options.fail_after_batches = fail_after_batches_from_env();
    std::atomic<size_t> next{0};
    std::atomic<size_t> failed{0}, skipped{0};
    const auto start = std::chrono::steady_clock::now();
    auto worker = [&]() {
        std::vector<exporter::HttpClient> clients;
        for (unsigned c = 0; c < connections; ++c) {
            auto client = connect();
            if (!client) {
                say(stderr, ctx.program + " export: " + client.error().to_string());
                failed += 1;
                return;
            }
            clients.push_back(std::move(*client));
        }
        std::vector<exporter::HttpClient*> client_ptrs;
        for (auto& c : clients) client_ptrs.push_back(&c);
        exporter::FileExporter exporter(client_ptrs, schema, file_options, counters);
        for (size_t i; (i = next++) < files.size();) {
            auto r = exporter.run(files[i]);
            counters.files_done += 1;
            if (!r) {
                failed += 1;
                say(stderr, ctx.program + " export: " + r.error().to_string());
                continue;
            }
            if (r->already_exported) skipped += 1;
            if (quiet) continue;
            if (r->already_exported)
                say(stdout, files[i] + ": already exported");
            else
                say(stdout, files[i] + ": " + std::to_string(r->events) + " events in " +
                                std::to_string(r->batches) + " batches, " +
                                sinks::ProgressBar::bytes_text(r->sent_bytes) + " sent");
        }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < std::min<size_t>(jobs, files.size()); ++t) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();

    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!quiet) {
        char line[256];
        std::snprintf(
            line, sizeof line,
            "export: %zu files (%zu already exported, %zu failed), %llu events in %.2f s (%.0f events/s)",
            files.size(), skipped.load(), failed.load(),
            static_cast<unsigned long long>(counters.events.load()), secs,
            secs > 0 ? counters.events / secs : 0.0);
        say(stderr, line);
    }
    return failed ? kExitRuntime : kExitOk;
}

}  // namespace ringscope::cli
