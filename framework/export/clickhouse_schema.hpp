// The tables `ringscope export` writes (created when absent) and the statements that keep an
// export exactly-once. framework/export/README.md documents the columns with query examples.
#pragma once

#include <cstdint>
#include <string>

namespace ringscope::exporter {

class ClickHouseSchema {
  public:
    explicit ClickHouseSchema(std::string database) : db_(std::move(database)) {}

    std::string create_database() const;
    // DB.events: one row per event, MergeTree partitioned by file_id.
    std::string create_events() const;
    // DB.files: one row per imported file, written after all its events.
    std::string create_files() const;

    std::string file_is_exported(uint64_t file_id) const;  // answers a count
    std::string drop_file_events(uint64_t file_id) const;  // what an interrupted run left
    // Rows of one batch (by seq) already stored: a retried batch whose first try did land.
    std::string count_batch(uint64_t file_id, uint64_t first_seq, uint64_t end_seq) const;
    std::string insert_events() const;  // FORMAT RowBinary, columns in events order
    std::string insert_files() const;

  private:
    std::string db_;
};

}  // namespace ringscope::exporter
