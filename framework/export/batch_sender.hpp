// Stores one file's compressed event batches from threads of its own (one per connection), so that
// the next batch is read and encoded while the server stores earlier ones, and a server with spare
// cores stores several at once. At most one batch waits.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/export/clickhouse_schema.hpp"
#include "framework/export/file_exporter.hpp"
#include "framework/export/http_client.hpp"

namespace ringscope::exporter {

class BatchSender {
  public:
    // Each client is used only by its thread until finish() returns.
    BatchSender(std::span<HttpClient* const> clients, const ClickHouseSchema& schema, uint64_t file_id,
                ExportCounters& counters);
    ~BatchSender();  // finish()
    BatchSender(const BatchSender&) = delete;
    BatchSender& operator=(const BatchSender&) = delete;

    // Hands over the batch of rows [first_seq, end_seq); waits while an earlier batch still waits.
    // Returns the error of an earlier batch, if one failed (this batch is then dropped).
    Status send(std::vector<uint8_t> body, uint64_t first_seq, uint64_t end_seq);
    // Waits until every batch handed over is stored or failed; the first error.
    Status finish();

    uint64_t sent_bytes() const noexcept { return sent_bytes_; }

  private:
    struct Batch {
        std::vector<uint8_t> body;
        uint64_t first_seq = 0, end_seq = 0;
    };
    void loop(HttpClient& client);
    Status store(HttpClient& client, const Batch& b);

    const ClickHouseSchema& schema_;
    uint64_t file_id_;
    ExportCounters& counters_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Batch> waiting_;
    int busy_ = 0;
    bool stopping_ = false;
    Status error_;
    uint64_t sent_bytes_ = 0;
    std::vector<std::thread> threads_;
};

}  // namespace ringscope::exporter
