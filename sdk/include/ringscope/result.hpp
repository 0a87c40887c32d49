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

// text: each table as "name:" and aligned columns (numbers right-aligned, doubles with 6
// significant digits); json: {"NAME": [{column: value, ...}, ...], ...}; csv: per table a
// "# NAME" line, a header line and RFC 4180 rows, tables separated by a blank line.
void write_tables(std::FILE* out, const std::vector<ResultTable>& tables, TableFormat format);
// "text", "json" or "csv"; false for anything else.
bool parse_table_format(std::string_view name, TableFormat& format);

}  // namespace ringscope
