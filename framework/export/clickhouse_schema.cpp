#include "framework/export/clickhouse_schema.hpp"

namespace ringscope::exporter {

std::string ClickHouseSchema::create_database() const {
    return "CREATE DATABASE IF NOT EXISTS " + db_;
}

// Only what 18.16 (Debian 12) and newer servers both have: MergeTree with PARTITION BY / ORDER BY,
// arrays as the typed field map.
std::string ClickHouseSchema::create_events() const {
    return "CREATE TABLE IF NOT EXISTS " + db_ +
           ".events (file_id UInt64, seq UInt64, file String, host String, ts_ns UInt64, cpu UInt32, "
           "pid Int32, comm String, system String, name String, "
           "field_names Array(String), field_ints Array(Int64), "
           "str_names Array(String), str_values Array(String), "
           "arr_names Array(String), arr_values Array(Array(Int64))) "
           "ENGINE = MergeTree PARTITION BY file_id ORDER BY (file_id, ts_ns, seq)";
}

std::string ClickHouseSchema::create_files() const {
    return "CREATE TABLE IF NOT EXISTS " + db_ +
           ".files (file_id UInt64, path String, trace_id UInt64, content_hash UInt64, uname String, "
           "host String, cpus UInt32, events UInt64, bytes UInt64, imported_at DateTime) "
           "ENGINE = MergeTree ORDER BY file_id";
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
    return "INSERT INTO " + db_ + ".events FORMAT RowBinary";
}

std::string ClickHouseSchema::insert_files() const {
    return "INSERT INTO " + db_ + ".files FORMAT RowBinary";
}

}  // namespace ringscope::exporter
