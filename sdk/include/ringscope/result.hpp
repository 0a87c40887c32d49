// What an analysis produces: named tables of typed cells. The framework renders them as aligned
// text, JSON or CSV, and feeds them to the other outputs.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ringscope {

using Cell = std::variant<std::monostate, int64_t, uint64_t, double, std::string>;

struct ResultTable {
    std::string name;                  // e.g. "sched.latency.tasks"
    std::vector<std::string> columns;
    std::vector<std::vector<Cell>> rows;
};

class ResultSink {
public:
    virtual ~ResultSink() = default;
    virtual void add_table(ResultTable table) = 0;
};

// Keeps the tables in the order they come.
class TableCollector final : public ResultSink {
public:
    void add_table(ResultTable table) override { tables.push_back(std::move(table)); }
    std::vector<ResultTable> tables;
};

enum class TableFormat : uint8_t { text, json, csv };

// text: each table as "name:" and aligned columns, numbers right-aligned, for people: a column
// named "*_ns" holds durations, printed with the unit that suits each value ("812 ns", "1.250 us",
// "3.002 ms", "1.384 s"), one named "*_ts" (or "*start_ns") timestamps, printed as `report` prints them
// (seconds, 6 decimals), other doubles in fixed notation; json: {"NAME": [{column: value, ...}, ...], ...}
// and csv (per table a "# NAME" line, a header line and RFC 4180 rows, tables separated by a
// blank line) keep the exact values: integers in ns.
void write_tables(std::FILE* out, const std::vector<ResultTable>& tables, TableFormat format);
// A duration for people: "812 ns", "1.250 us", "3.002 ms", "1.384 s" (never scientific notation).
std::string format_duration_ns(double ns);
// Sorts a table's rows by `column`, largest first (numbers before text and empty cells, ties kept in
// order); false when the table has no such column.
bool sort_rows_desc(ResultTable& table, std::string_view column);
// "text", "json" or "csv"; false for anything else.
bool parse_table_format(std::string_view name, TableFormat& format);

}  // namespace ringscope
