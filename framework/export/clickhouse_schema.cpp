#include "framework/export/clickhouse_schema.hpp"

#include <span>

namespace ringscope::exporter {
namespace {

std::string column_list(std::span<const ColumnSpec> columns) {
    std::string s = "(";
    for (const ColumnSpec& c : columns) {
        if (s.size() > 1) s += ", ";
        s += std::string(c.name) + " " + std::string(c.type);
    }
    return s + ")";
}

}  // namespace

std::string ClickHouseSchema::create_database() const {
    return "CREATE DATABASE IF NOT EXISTS " + db_;
}

// Only what 18.16 (Debian 12) and newer servers both have: MergeTree with PARTITION BY / ORDER BY,
// arrays as the typed field map.
std::string ClickHouseSchema::create_events() const {
    return "CREATE TABLE IF NOT EXISTS " + db_ + ".events " + column_list(kEventColumns) +
           " ENGINE = MergeTree PARTITION BY file_id ORDER BY (file_id, ts_ns, seq)";
}

std::string ClickHouseSchema::create_files() const {
    return "CREATE TABLE IF NOT EXISTS " + db_ + ".files " + column_list(kFileColumns) +
           " ENGINE = MergeTree ORDER BY file_id";
}

std::string ClickHouseSchema::file_is_exported(uint64_t file_id) const {
    return "SELECT count() FROM " + db_ + ".files WHERE file_id = " + std::to_string(file_id);
}

std::string ClickHouseSchema::drop_file_events(uint64_t file_id) const {
    return "ALTER TABLE " + db_ + ".events DROP PARTITION " + std::to_string(file_id);
}

std::string ClickHouseSchema::count_batch(uint64_t file_id, uint64_t first_seq, uint64_t end_seq) const {
    return "SELECT count() FROM " + db_ + ".events WHERE file_id = " + std::to_string(file_id) +
           " AND seq >= " + std::to_string(first_seq) + " AND seq < " + std::to_string(end_seq);
}

std::string ClickHouseSchema::insert_events() const {
    return "INSERT INTO " + db_ + ".events FORMAT Native";
}

std::string ClickHouseSchema::insert_files() const {
    return "INSERT INTO " + db_ + ".files FORMAT Native";
}

}  // namespace ringscope::exporter
