// Stores one file's compressed event batches from a thread of its own, so that the next batch is
// read and encoded while the server stores the previous one. At most one batch waits.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/export/clickhouse_schema.hpp"
#include "framework/export/file_exporter.hpp"
#include "framework/export/http_client.hpp"

namespace ringscope::exporter {

class BatchSender {
  public:
    // CLIENT is used only by this sender's thread until finish() returns.
    BatchSender(HttpClient& client, const ClickHouseSchema& schema, uint64_t file_id,
                ExportCounters& counters);
    ~BatchSender();  // finish()
    BatchSender(const BatchSender&) = delete;
    BatchSender& operator=(const BatchSender&) = delete;

    // Hands over the batch of rows [first_seq, end_seq); waits while an earlier batch still waits.
    // Returns the error of an earlier batch, if one failed (this batch is then dropped).
    Status send(std::vector<uint8_t> body, uint64_t first_seq, uint64_t end_seq);
    // Waits until every batch handed over is stored or failed; the first error.
    Status finish();

    uint64_t batches() const noexcept { return batches_; }
    uint64_t sent_bytes() const noexcept { return sent_bytes_; }

  private:
    struct Batch {
        std::vector<uint8_t> body;
        uint64_t first_seq = 0, end_seq = 0;
    };
    void loop();
    Status store(const Batch& b);

    HttpClient& client_;
    const ClickHouseSchema& schema_;
    uint64_t file_id_;
    ExportCounters& counters_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::optional<Batch> waiting_;
    bool busy_ = false, stopping_ = false;
    Status error_;
    uint64_t batches_ = 0, sent_bytes_ = 0;
    std::thread thread_;
};

}  // namespace ringscope::exporter
