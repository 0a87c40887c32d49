#include "framework/sinks/html_table.hpp"

#include <ringscope/result.hpp>

#include <ringscope/selection.hpp>
#include "framework/results/column_heading.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>
#include <vector>

#include "framework/sinks/svg_chart.hpp"

namespace ringscope::sinks {

using json = nlohmann::ordered_json;

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_time_column(std::string_view k) {
    return ends_with(k, "_ts") || ends_with(k, "start_ns");
}
bool is_duration_column(std::string_view k) {
    return ends_with(k, "_ns") && !is_time_column(k);
}
bool is_share_column(std::string_view k) {
    return k == "share" || ends_with(k, "_share") || ends_with(k, "_busy") || ends_with(k, "_pct");
}
bool is_count_column(std::string_view k) {
    return k == "count" || k == "events" || k == "exits" || k == "wakeups" || k == "switches" ||
           ends_with(k, "_count");
}

// The column to sort by, worst first: the largest kind of duration (max, then total, then any),
// else a count. None for a series in time (a timestamp first) or a one-row table.
std::optional<std::string> worst_first_key(const json& rows) {
    if (rows.size() < 2) return std::nullopt;
    const json& first = rows[0];
    if (first.empty() || is_time_column(first.begin().key())) return std::nullopt;
    for (std::string_view want : {"max", "total", ""}) {
        for (const auto& [k, v] : first.items())
            if (v.is_number() && is_duration_column(k) && k.find(want) != std::string::npos) return k;
    }
    for (const auto& [k, v] : first.items())
        if (v.is_number() && is_count_column(k)) return k;
    return std::nullopt;
}

std::string raw_number(const json& v) {
    if (v.is_number_float()) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", v.get<double>());
        return buf;
    }
    return v.dump();
}

// A time's cell says where it is on the viewer's timeline (web/results.js): data-ts, and for a
// window's start its end too.
std::string time_attributes(const json& row, const std::string& k, const json& v) {
    if (!is_time_column(k) || !v.is_number_integer() || v.get<int64_t>() < 0) return {};
    std::string o = " data-ts=\"" + v.dump() + "\"";
    if (k == "window_start_ns" && row.contains("window_ns") && row["window_ns"].is_number_unsigned())
        o += " data-ts-end=\"" + std::to_string(v.get<uint64_t>() + row["window_ns"].get<uint64_t>()) + "\"";
    return o;
}

}  // namespace

std::string readable_cell(const std::string& column, const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_null()) return "";
    if (!v.is_number()) return v.dump();
    if (is_time_column(column) && v.is_number_integer() && v.get<int64_t>() >= 0)
        return format_trace_seconds(v.get<uint64_t>());
    if (ends_with(column, "_ns")) return format_duration_ns(v.get<double>());
    if (is_share_column(column)) {  // a fraction (0.25) or a percentage (share_pct: 25.0)
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.2f %%", v.get<double>() * (ends_with(column, "_pct") ? 1 : 100));
        return buf;
    }
    if (v.is_number_float()) {
        char buf[48];
        const double d = v.get<double>();
        std::snprintf(buf, sizeof buf, std::fabs(d) >= 1e4 ? "%.1f" : "%.4f", d);
        return buf;
    }
    return v.dump();
}

std::string table_html(const json& rows, const std::string& name, size_t limit) {
    if (!rows.is_array() || rows.empty() || !rows[0].is_object()) return "<p class=\"empty\">no rows</p>";
    std::vector<const json*> order;
    for (const auto& r : rows) order.push_back(&r);
    const std::optional<std::string> key = worst_first_key(rows);
    if (key) {
        std::stable_sort(order.begin(), order.end(), [&](const json* a, const json* b) {
            const json* va = a->contains(*key) ? &(*a)[*key] : nullptr;
            const json* vb = b->contains(*key) ? &(*b)[*key] : nullptr;
            const bool na = va && va->is_number(), nb = vb && vb->is_number();
            if (na && nb) return va->get<double>() > vb->get<double>();
            return na && !nb;
        });
    }
    std::string o = "<table class=\"sortable\" data-name=\"" + html_escape(name) + "\"><thead><tr>";
    for (const auto& [k, v] : rows[0].items()) {
        const bool sorted = key && k == *key;
        o += "<th data-key=\"" + html_escape(k) + (sorted ? "\" data-dir=\"desc\">" : "\">") +
             html_escape(column_heading(k)) + "</th>";
    }
    o += "</tr></thead><tbody>";
    size_t n = 0;
    for (const json* r : order) {
        if (n++ == limit) break;
        o += "<tr>";
        for (const auto& [k, v] : r->items()) {
            if (v.is_number())
                o += "<td class=\"n\" data-v=\"" + raw_number(v) + "\"" + time_attributes(*r, k, v) + ">" +
                     html_escape(readable_cell(k, v)) + "</td>";
            else
                o += "<td>" + html_escape(readable_cell(k, v)) + "</td>";
        }
        o += "</tr>";
    }
    o += "</tbody></table>";
    if (rows.size() > limit) {
        o += "<p class=\"note\">" + std::to_string(rows.size() - limit) + " more rows";
        if (key) o += " (smaller " + html_escape(*key) + ")";
        o += " in the JSON/CSV outputs</p>";
    }
    return o;
}

}  // namespace ringscope::sinks
