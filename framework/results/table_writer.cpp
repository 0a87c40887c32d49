// Renders analysis result tables as aligned text, JSON or CSV.
#include <ringscope/result.hpp>
#include <ringscope/selection.hpp>
#include <ringscope/text_escape.hpp>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "framework/results/column_heading.hpp"
#include "framework/results/table_json.hpp"

namespace ringscope {
namespace {

// Exact, as JSON and CSV keep them: integers as they are, doubles with up to 6 significant digits.
std::string cell_text(const Cell& c) {
    char buf[64];
    switch (c.index()) {
        case 1:
            std::snprintf(buf, sizeof buf, "%" PRId64, std::get<int64_t>(c));
            return buf;
        case 2:
            std::snprintf(buf, sizeof buf, "%" PRIu64, std::get<uint64_t>(c));
            return buf;
        case 3: {
            double d = std::get<double>(c);
            std::snprintf(buf, sizeof buf, std::fabs(d) >= 1e4 ? "%.1f" : "%.6g", d);
            return buf;
        }
        case 4:
            return std::get<std::string>(c);
        default:
            return "";
    }
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<double> number_of(const Cell& c) {
    switch (c.index()) {
        case 1:
            return static_cast<double>(std::get<int64_t>(c));
        case 2:
            return static_cast<double>(std::get<uint64_t>(c));
        case 3:
            return std::get<double>(c);
        default:
            return std::nullopt;
    }
}

// For people (the text format): a column "*_ns" is a duration in the unit that suits each value,
// "*_ts" (or "*start_ns") a timestamp as `report` prints it, other doubles in fixed notation
// (never 1.0245e+06).
std::string readable_text(std::string_view column, const Cell& c) {
    char buf[64];
    // A timestamp: "*_ts", or the start of a window ("window_start_ns").
    if ((ends_with(column, "_ts") || ends_with(column, "start_ns")) && c.index() == 2)
        return format_trace_seconds(std::get<uint64_t>(c));
    if (ends_with(column, "_ns") && number_of(c)) return format_duration_ns(*number_of(c));
    if (c.index() == 3) {
        const double d = std::get<double>(c);
        const double a = std::fabs(d);
        std::snprintf(buf, sizeof buf, a >= 1e4 ? "%.1f" : "%.4f", d);
        return buf;
    }
    return cell_text(c);
}

// A CSV cell: text through the shared escaping (formula guard, quotes); numbers as they are, so a
// negative one keeps its sign.
std::string csv_field(const Cell& c) {
    if (c.index() != 4) return cell_text(c);
    return escaped(std::get<std::string>(c), TextTarget::csv);
}

void write_text(std::FILE* out, const ResultTable& t) {
    std::fprintf(out, "%s:\n", t.name.c_str());
    std::vector<size_t> width(t.columns.size(), 0);
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> headings;
    for (const auto& c : t.columns) headings.push_back(column_heading(c));
    for (size_t i = 0; i < t.columns.size(); ++i) width[i] = headings[i].size();
    for (const auto& r : t.rows) {
        std::vector<std::string> cells;
        for (size_t i = 0; i < t.columns.size(); ++i) {
            // Text from a trace (a task name) must not drive the terminal.
            cells.push_back(i < r.size() ? escaped(readable_text(t.columns[i], r[i]), TextTarget::terminal)
                                         : "");
            width[i] = std::max(width[i], cells.back().size());
        }
        rows.push_back(std::move(cells));
    }
    auto numeric = [&](size_t col) {
        for (const auto& r : t.rows)
            if (col < r.size() && r[col].index() == 4) return false;
        return true;
    };
    std::vector<bool> right(t.columns.size());
    for (size_t i = 0; i < t.columns.size(); ++i) right[i] = numeric(i);
    auto line = [&](const std::vector<std::string>& cells) {
        std::string s = " ";
        for (size_t i = 0; i < cells.size(); ++i) {
            std::string pad(width[i] - cells[i].size(), ' ');
            s += ' ';
            s += right[i] ? pad + cells[i] : cells[i] + (i + 1 < cells.size() ? pad : "");
        }
        std::fprintf(out, "%s\n", s.c_str());
    };
    line(headings);
    for (const auto& r : rows) line(r);
}

}  // namespace

std::string column_heading(std::string_view column) {
    if (ends_with(column, "_ns") && column.size() > 3) column.remove_suffix(3);
    return std::string(column);
}

std::string format_duration_ns(double ns) {
    char buf[64];
    const double a = std::fabs(ns);
    if (a < 1000) {
        std::snprintf(buf, sizeof buf, ns == std::floor(ns) ? "%.0f ns" : "%.1f ns", ns);
        return buf;
    }
    const char* unit = a < 1e6 ? "us" : a < 1e9 ? "ms" : "s";
    const double v = ns / (a < 1e6 ? 1e3 : a < 1e9 ? 1e6 : 1e9);
    std::snprintf(buf, sizeof buf, "%.3f %s", v, unit);
    return buf;
}

bool sort_rows_desc(ResultTable& table, std::string_view column) {
    size_t col = 0;
    while (col < table.columns.size() && table.columns[col] != column) ++col;
    if (col == table.columns.size()) return false;
    auto key = [&](const std::vector<Cell>& r) { return col < r.size() ? number_of(r[col]) : std::nullopt; };
    std::stable_sort(table.rows.begin(), table.rows.end(), [&](const auto& a, const auto& b) {
        const auto ka = key(a), kb = key(b);
        if (ka && kb) return *ka > *kb;
        if (ka || kb) return ka.has_value();
        const bool sa = col < a.size() && a[col].index() == 4, sb = col < b.size() && b[col].index() == 4;
        if (sa && sb) return std::get<std::string>(a[col]) > std::get<std::string>(b[col]);
        return sa && !sb;
    });
    return true;
}

bool parse_table_format(std::string_view name, TableFormat& format) {
    if (name == "text")
        format = TableFormat::text;
    else if (name == "json")
        format = TableFormat::json;
    else if (name == "csv")
        format = TableFormat::csv;
    else
        return false;
    return true;
}

void write_tables(std::FILE* out, const std::vector<ResultTable>& tables, TableFormat format) {
    switch (format) {
        case TableFormat::text:
            for (size_t i = 0; i < tables.size(); ++i) {
                if (i) std::fputc('\n', out);
                write_text(out, tables[i]);
            }
            break;
        case TableFormat::json:
            std::fprintf(out, "%s\n", results::tables_json(tables).dump(2).c_str());
            break;
        case TableFormat::csv:
            for (size_t i = 0; i < tables.size(); ++i) {
                const auto& t = tables[i];
                if (i) std::fputc('\n', out);
                std::fprintf(out, "# %s\n", t.name.c_str());
                std::string header;
                for (size_t c = 0; c < t.columns.size(); ++c)
                    header += (c ? "," : "") + escaped(t.columns[c], TextTarget::csv);
                std::fprintf(out, "%s\n", header.c_str());
                for (const auto& r : t.rows) {
                    std::string line;
                    for (size_t c = 0; c < r.size(); ++c) line += (c ? "," : "") + csv_field(r[c]);
                    std::fprintf(out, "%s\n", line.c_str());
                }
            }
            break;
    }
}

}  // namespace ringscope
