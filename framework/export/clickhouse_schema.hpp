// The tables `ringscope export` writes (created when absent) and the statements that keep an
// export exactly-once. framework/export/README.md documents the columns with query examples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

namespace ringscope::exporter {

struct ColumnSpec {
    std::string_view name, type;
};

// DB.events, one row per event; EventBlock writes these columns in this order.
inline constexpr ColumnSpec kEventColumns[] = {
    {"file_id", "UInt64"},
    {"seq", "UInt64"},
    {"file", "String"},
    {"host", "String"},
    {"ts_ns", "UInt64"},
    {"cpu", "UInt32"},
    {"pid", "Int32"},
    {"comm", "String"},
    {"system", "String"},
    {"name", "String"},
    {"field_names", "Array(String)"},
    {"field_ints", "Array(Int64)"},
    {"str_names", "Array(String)"},
    {"str_values", "Array(String)"},
    {"arr_names", "Array(String)"},
    {"arr_values", "Array(Array(Int64))"},
};

inline constexpr size_t kEventColumnCount = std::size(kEventColumns);

// DB.files, one row per imported file, written after all its events.
inline constexpr ColumnSpec kFileColumns[] = {
    {"file_id", "UInt64"}, {"path", "String"},          {"trace_id", "UInt64"}, {"content_hash", "UInt64"},
    {"uname", "String"},   {"host", "String"},          {"cpus", "UInt32"},     {"events", "UInt64"},
    {"bytes", "UInt64"},   {"imported_at", "DateTime"},
};

class ClickHouseSchema {
  public:
    explicit ClickHouseSchema(std::string database) : db_(std::move(database)) {}

    std::string create_database() const;
    // MergeTree partitioned by file_id: a file's events can be dropped as one partition.
    std::string create_events() const;
    std::string create_files() const;

    std::string file_is_exported(uint64_t file_id) const;  // answers a count
    std::string drop_file_events(uint64_t file_id) const;  // what an interrupted run left
    // Rows of one batch (by seq) already stored: a retried batch whose first try did land.
    std::string count_batch(uint64_t file_id, uint64_t first_seq, uint64_t end_seq) const;
    std::string insert_events() const;  // FORMAT Native
    std::string insert_files() const;

  private:
    std::string db_;
};

}  // namespace ringscope::exporter
