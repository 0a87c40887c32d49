// Exports one trace file into ClickHouse exactly once:
//   1. identity: file_id from the trace id and a hash of the file's bytes;
//   2. DB.files already has file_id -> "already exported", nothing is sent;
//   3. otherwise DROP PARTITION file_id removes what an interrupted earlier run left in DB.events;
//   4. the events go in Native blocks (zlib-compressed), each retried until it is known stored;
//   5. the DB.files row goes last, so it exists only when every event does;
//   6. a file that fails after its partition was dropped has it dropped again: no rows of it stay.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/export/clickhouse_schema.hpp"
#include "framework/export/http_client.hpp"

namespace ringscope {
class Trace;
}

namespace ringscope::exporter {

// Shared by the files of a parallel export (the progress line reads them).
struct ExportCounters {
    std::atomic<uint64_t> files_done{0}, events{0}, input_bytes{0}, sent_bytes{0};
};

struct FileExportOptions {
    size_t batch_rows = 262144;  // fewer, larger parts: 2x faster than 65536 on 18.16
    // A test hook (RINGSCOPE_EXPORT_FAIL_AFTER_BATCHES): stop with an error after this many
    // batches, as a crash would, before the files row. 0 = never.
    uint64_t fail_after_batches = 0;
};

struct FileExportResult {
    std::string path;
    uint64_t file_id = 0;
    bool already_exported = false;
    uint64_t events = 0, batches = 0, sent_bytes = 0;
};

class FileExporter {
  public:
    // CLIENTS: one per connection (at least one); the first also runs the statements.
    FileExporter(std::span<HttpClient* const> clients, const ClickHouseSchema& schema,
                 FileExportOptions options, ExportCounters& counters)
        : clients_(clients),
          client_(*clients.front()),
          schema_(schema),
          options_(options),
          counters_(counters) {}

    // Errors name the file (and the byte offset for a trace that does not read).
    Expected<FileExportResult> run(const std::string& path);

  private:
    // e, after dropping the file's partition (or saying that it could not be dropped).
    Error without_rows(Error e, uint64_t file_id);
    // Step 4: every event of `trace` in batches (result's events, batches, sent_bytes). A failure
    // drops what was stored (step 6), but for the test hook's.
    Status send_events(Trace& trace, const std::string& path, const std::string& host,
                       FileExportResult& result);
    // Step 5: the DB.files row (`row`, encoded). `exported_sql` counts the file's rows in DB.files.
    Status insert_files_row(const std::vector<uint8_t>& row, const std::string& exported_sql,
                            uint64_t file_id);

    std::span<HttpClient* const> clients_;
    HttpClient& client_;
    const ClickHouseSchema& schema_;
    FileExportOptions options_;
    ExportCounters& counters_;
};

}  // namespace ringscope::exporter
