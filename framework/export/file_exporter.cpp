#include "framework/export/file_exporter.hpp"

#include <ringscope/trace.hpp>

#include <ctime>
#include <vector>

#include "framework/engine/trace_file.hpp"
#include "framework/export/batch_sender.hpp"
#include "framework/export/content_hash.hpp"
#include "framework/export/deflate_stream.hpp"
#include "framework/export/event_block.hpp"

namespace ringscope::exporter {
namespace {

// "Linux HOST 6.1.0 ..." -> HOST.
std::string host_of(const std::string& uname) {
    size_t a = uname.find(' ');
    if (a == std::string::npos) return {};
    size_t b = uname.find(' ', a + 1);
    return uname.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

// The DB.files row, in kFileColumns order.
struct FileRow {
    uint64_t file_id;
    const std::string& path;
    uint64_t trace_id, content_hash;
    const std::string &uname, &host;
    uint32_t cpus;
    uint64_t events, bytes;
    uint32_t imported_at;  // DateTime: seconds since the epoch
};

void encode_file_row(const FileRow& r, DeflateStream& out) {
    NativeBytes values[std::size(kFileColumns)];
    values[0].fixed(r.file_id);
    values[1].string(r.path);
    values[2].fixed(r.trace_id);
    values[3].fixed(r.content_hash);
    values[4].string(r.uname);
    values[5].string(r.host);
    values[6].fixed(r.cpus);
    values[7].fixed(r.events);
    values[8].fixed(r.bytes);
    values[9].fixed(r.imported_at);
    NativeBlockWriter<DeflateStream> row(out, std::size(kFileColumns), 1);
    for (size_t c = 0; c < std::size(kFileColumns); ++c) {
        const NativeBytes* part = &values[c];
        row.column(kFileColumns[c].name, kFileColumns[c].type, {&part, 1});
    }
}

}  // namespace

Error FileExporter::without_rows(Error e, uint64_t file_id) {
    // A file is in DB.events whole or not at all: what its batches stored goes with its partition.
    if (auto dropped = client_.query(schema_.drop_file_events(file_id)); !dropped)
        return Error(e.code(), e.message() + "; its rows could not be removed (" + dropped.error().message() +
                                   "), the next export of the file removes them");
    return Error(e.code(), e.message() + "; its rows were removed (partition dropped)");
}

Status FileExporter::send_events(Trace& trace, const std::string& path, const std::string& host,
                                 FileExportResult& result) {
    DeflateStream body;
    EventBlock batch(result.file_id, path, host);
    uint64_t seq = 0, batch_first = 0;
    BatchSender sender(clients_, schema_, result.file_id, counters_);
    const auto stop_hook = [&] {
        return options_.fail_after_batches && result.batches >= options_.fail_after_batches;
    };
    auto flush = [&]() -> Status {
        if (batch.rows() == 0) return Status::success();
        body.reset();
        batch.encode(body);
        if (Status s = body.finish(); !s) return s;
        if (Status s = sender.send(body.take(), batch_first, seq); !s) return s;
        batch.clear();
        batch_first = seq;
        ++result.batches;
        if (stop_hook()) {
            if (Status s = sender.finish(); !s) return s;
            return Error(Errc::io, "stopped after " + std::to_string(result.batches) +
                                       " batches (RINGSCOPE_EXPORT_FAIL_AFTER_BATCHES)");
        }
        return Status::success();
    };
    Status sent;
    for (const Event& ev : trace.events()) {
        batch.add(seq++, ev);
        if (batch.rows() >= options_.batch_rows)
            if (sent = flush(); !sent) break;
    }
    if (sent && !trace.status()) sent = trace.status().error();
    if (sent) sent = flush();
    // Every batch in flight ends (stored or failed) before anything is dropped.
    if (Status s = sender.finish(); sent && !s) sent = std::move(s);
    if (!sent) {
        if (stop_hook()) return sent;  // the test hook stands for a crash: rows stay
        return without_rows(std::move(sent).error(), result.file_id);
    }
    result.sent_bytes = sender.sent_bytes();
    result.events = seq;
    return {};
}

Status FileExporter::insert_files_row(const std::vector<uint8_t>& row, const std::string& exported_sql,
                                      uint64_t file_id) {
    auto files_landed = [&]() -> Expected<bool> {
        auto n = client_.query_count(exported_sql);
        if (!n) return std::move(n).error();
        return *n > 0;
    };
    Status s = client_.insert(schema_.insert_files(), row, files_landed);
    if (s) return s;
    // Its rows go only when the files row is known absent; one that landed unseen makes the
    // file exported after all.
    auto n = client_.query_count(exported_sql);
    if (n && *n == 0) return without_rows(std::move(s).error(), file_id);
    if (!n) {
        Error e = std::move(s).error();
        return Error(e.code(), e.message() + "; its rows stay: whether its files row landed is unknown");
    }
    return {};
}

Expected<FileExportResult> FileExporter::run(const std::string& path) {
    FileExportResult result;
    result.path = path;
    TraceOpenOptions open_options;
    open_options.load_plugins = false;  // the events as recorded: no print overrides needed
    auto trace = Trace::open(path, open_options);
    if (!trace) return std::move(trace).error().in_file(path);
    // The SDK's context is the engine's TraceFile: it holds the file's options.
    const auto* file = dynamic_cast<const engine::TraceFile*>(&trace->context());
    if (!file) return Error(Errc::unsupported, "not a trace.dat file").in_file(path);
    const io::TraceDatOptions& opts = file->reader().options();
    const uint64_t trace_id = opts.trace_id.value_or(0);
    const std::string uname = opts.uname.value_or("");
    const std::string host = host_of(uname);
    const uint64_t file_bytes = file->reader().file()->size();

    auto hash = ContentHash::of_file(path);
    if (!hash) return std::move(hash).error();
    result.file_id = file_id(trace_id, *hash);
    auto fail = [&](Error e) { return std::move(e).in_file(path); };

    const std::string exported_sql = schema_.file_is_exported(result.file_id);
    auto exported = client_.query_count(exported_sql);
    if (!exported) return fail(std::move(exported).error());
    if (*exported > 0) {
        result.already_exported = true;
        counters_.input_bytes += file_bytes;
        return result;
    }
    if (auto dropped = client_.query(schema_.drop_file_events(result.file_id)); !dropped)
        return fail(std::move(dropped).error());
    if (Status s = send_events(*trace, path, host, result); !s) return fail(std::move(s).error());

    DeflateStream body;
    encode_file_row(
        FileRow{result.file_id, path, trace_id, *hash, uname, host, static_cast<uint32_t>(file->cpu_count()),
                result.events, file_bytes, static_cast<uint32_t>(std::time(nullptr))},
        body);
    if (Status s = body.finish(); !s) return fail(std::move(s).error());
    if (Status s = insert_files_row(body.body(), exported_sql, result.file_id); !s)
        return fail(std::move(s).error());
    result.sent_bytes += body.body().size();
    counters_.sent_bytes += body.body().size();
    counters_.input_bytes += file_bytes;
    return result;
}

}  // namespace ringscope::exporter
