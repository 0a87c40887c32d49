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

po::options_description export_options() {
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
    return opts;
}

// What the command line asks for, checked.
struct ExportArgs {
    exporter::ClickHouseUrl url;
    exporter::Credentials credentials;
    exporter::RetryPolicy policy;
    unsigned jobs = 1;
    unsigned connections = 2;
    size_t batch_rows = 0;
    std::vector<std::string> files;
    bool quiet = false;
};

// Fills `a` from the command line. Returns -1 to go on, or the exit code to return now.
int parse_export_args(CliContext& ctx, const std::vector<std::string>& args, ExportArgs& a) {
    po::positional_options_description pos;
    pos.add("files", -1);
    po::variables_map vm;
    if (int rc = parse_options(ctx, "export", export_options(), pos, args, vm); rc >= 0) return rc;
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
    a.url = std::move(*url);
    a.jobs = vm["jobs"].as<unsigned>();
    a.connections = vm["connections"].as<unsigned>();
    a.batch_rows = vm["batch-rows"].as<size_t>();
    const int retries = vm["retries"].as<int>();
    if (a.jobs == 0 || a.connections == 0 || a.batch_rows == 0 || retries < 0) {
        ctx.error("export: -j, --connections and --batch-rows must be at least 1, --retries at least 0");
        return kExitUsage;
    }
    const double read_timeout = vm["read-timeout"].as<double>(), deadline = vm["deadline"].as<double>();
    if (!(read_timeout >= 1 && read_timeout <= 86400) || !(deadline >= 1 && deadline <= 86400)) {
        ctx.error("export: --read-timeout and --deadline are seconds from 1 to 86400");
        return kExitUsage;
    }
    a.policy.attempts = retries + 1;
    a.policy.read_timeout = std::chrono::milliseconds(static_cast<int64_t>(read_timeout * 1000));
    a.policy.deadline = std::chrono::milliseconds(static_cast<int64_t>(deadline * 1000));
    if (vm.count("user")) a.credentials.user = vm["user"].as<std::string>();
    if (vm.count("password-file")) {
        auto pw = read_password(vm["password-file"].as<std::string>());
        if (!pw) {
            ctx.error("export: " + pw.error().to_string());
            return kExitRuntime;
        }
        a.credentials.password = std::move(*pw);
    }
    a.files = vm["files"].as<std::vector<std::string>>();
    a.quiet = vm.count("quiet") > 0;
    return -1;
}

// One export: the tables made once, then the files shared out among -j workers, each with its
// own connections; progress, per-file lines and errors written a line at a time.
class ExportRun {
  public:
    ExportRun(CliContext& ctx, const ExportArgs& a, uint64_t total_bytes)
        : ctx_(ctx),
          a_(a),
          schema_(a.url.database),
          progress_(counters_, a.files.size(), total_bytes, !a.quiet) {
        options_.batch_rows = a.batch_rows;
        options_.fail_after_batches = fail_after_batches_from_env();
    }

    // Creates the database and its tables when absent; false after a one-line error.
    bool create_tables() {
        auto client = connect();
        if (!client) {
            ctx_.error("export: " + client.error().to_string());
            return false;
        }
        for (const std::string& sql :
             {schema_.create_database(), schema_.create_events(), schema_.create_files()}) {
            if (auto r = client->query(sql); !r) {
                say(stderr, ctx_.program + " export: " + r.error().to_string());
                return false;
            }
        }
        return true;
    }

    // Exports every file; the exit code.
    int run() {
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::thread> threads;
        for (unsigned t = 1; t < std::min<size_t>(a_.jobs, a_.files.size()); ++t)
            threads.emplace_back([this] { work(); });
        work();
        for (auto& t : threads) t.join();
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!a_.quiet) summary(secs);
        return failed_ ? kExitRuntime : kExitOk;
    }

  private:
    void say(std::FILE* out, const std::string& line) {
        std::lock_guard lock(progress_.output_mutex());
        progress_.clear_line();
        std::fprintf(out, "%s\n", line.c_str());
    }

    Expected<exporter::HttpClient> connect() {
        return exporter::HttpClient::create(a_.url, a_.credentials, a_.policy, [this](const std::string& m) {
            say(stderr, ctx_.program + " export: " + m);
        });
    }

    // A worker: takes the next file until none is left.
    void work() {
        std::vector<exporter::HttpClient> clients;
        for (unsigned c = 0; c < a_.connections; ++c) {
            auto client = connect();
            if (!client) {
                say(stderr, ctx_.program + " export: " + client.error().to_string());
                failed_ += 1;
                return;
            }
            clients.push_back(std::move(*client));
        }
        std::vector<exporter::HttpClient*> client_ptrs;
        for (auto& c : clients) client_ptrs.push_back(&c);
        exporter::FileExporter exporter(client_ptrs, schema_, options_, counters_);
        for (size_t i; (i = next_++) < a_.files.size();) {
            auto r = exporter.run(a_.files[i]);
            counters_.files_done += 1;
            if (!r) {
                failed_ += 1;
                say(stderr, ctx_.program + " export: " + r.error().to_string());
                continue;
            }
            if (r->already_exported) skipped_ += 1;
            if (!a_.quiet) say(stdout, a_.files[i] + ": " + file_line(*r));
        }
    }

    static std::string file_line(const exporter::FileExportResult& r) {
        if (r.already_exported) return "already exported";
        return std::to_string(r.events) + " events in " + std::to_string(r.batches) + " batches, " +
               sinks::ProgressBar::bytes_text(r.sent_bytes) + " sent";
    }

    void summary(double secs) {
        char line[256];
        std::snprintf(
            line, sizeof line,
            "export: %zu files (%zu already exported, %zu failed), %llu events in %.2f s (%.0f events/s)",
            a_.files.size(), skipped_.load(), failed_.load(),
            static_cast<unsigned long long>(counters_.events.load()), secs,
            secs > 0 ? counters_.events / secs : 0.0);
        say(stderr, line);
    }

    CliContext& ctx_;
    const ExportArgs& a_;
    const exporter::ClickHouseSchema schema_;
    exporter::ExportCounters counters_;
    exporter::ExportProgress progress_;
    exporter::FileExportOptions options_;
    std::atomic<size_t> next_{0};
    std::atomic<size_t> failed_{0}, skipped_{0};
};

}  // namespace

int run_export(CliContext& ctx, const std::vector<std::string>& args) {
    ExportArgs a;
    if (int rc = parse_export_args(ctx, args, a); rc >= 0) return rc;
    uint64_t total_bytes = 0;
    for (const auto& f : a.files) {
        auto m = io::MappedFile::open(f);
        if (!m) {
            ctx.error("export: " + std::move(m).error().in_file(f).to_string());
            return kExitRuntime;
        }
        total_bytes += (*m)->size();
    }
    ExportRun run(ctx, a, total_bytes);
    if (!run.create_tables()) return kExitRuntime;
    return run.run();
}

}  // namespace ringscope::cli
