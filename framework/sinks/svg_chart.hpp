// Inline SVG charts for the HTML report: drawn here, so the report needs no script or network.
#pragma once

#include <string>
#include <string_view>
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

}  // namespace ringscope::sinks
