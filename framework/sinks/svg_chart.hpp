// Inline SVG charts for the HTML report: drawn here, so the report needs no script or network.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringscope::sinks {

// `s` with &, <, >, " escaped for HTML/SVG text and attributes.
std::string html_escape(std::string_view s);

struct Bar {
    std::string label;
    double value = 0;
    std::string tooltip;  // empty = "label: value"
};

// Horizontal bars, one per row, labels on the left (exit reasons, event names).
std::string svg_hbar_chart(const std::vector<Bar>& bars, std::string_view value_unit);

// Vertical bars with a label under each (histogram bins); log_y for counts that span decades.
std::string svg_column_chart(const std::vector<Bar>& bars, std::string_view y_label, bool log_y);

struct Series {
    std::string name;
    std::vector<std::pair<double, double>> points;  // (x, y)
};

// Lines over a shared x axis (per-CPU utilization over time); y from 0 to y_max.
std::string svg_line_chart(const std::vector<Series>& series, std::string_view x_label,
                           std::string_view y_label, double y_max);

}  // namespace ringscope::sinks
