#include "framework/sinks/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ringscope::sinks {
namespace {

constexpr const char* kBarColor = "#3366cc";

// A bar's value for people: counts with thousands separators ("2,799,884"), never 2.8e+06.
std::string num(double v) {
    char buf[48];
    if (v != std::floor(v) || std::fabs(v) >= 1e18) {
        std::snprintf(buf, sizeof buf, "%.2f", v);
        return buf;
    }
    std::snprintf(buf, sizeof buf, "%.0f", std::fabs(v));
    std::string digits = buf, out = v < 0 ? "-" : "";
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string fmt(const char* f, double a) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, a);
    return buf;
}

}  // namespace

std::string html_escape(std::string_view s) {
    std::string o;
    o.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&':
                o += "&amp;";
                break;
            case '<':
                o += "&lt;";
                break;
            case '>':
                o += "&gt;";
                break;
            case '"':
                o += "&quot;";
                break;
            default:
                o += c;
        }
    }
    return o;
}

std::string svg_hbar_chart(const std::vector<Bar>& bars, std::string_view unit) {
    const int row = 22, label_w = 260, plot_w = 460, top = 10;
    const int h = top + row * static_cast<int>(bars.size()) + 10;
    double max = 0;
    for (const auto& b : bars) max = std::max(max, b.value);
    if (max <= 0) max = 1;
    std::string o = "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(label_w + plot_w + 120) + "\" height=\"" + std::to_string(h) + "\">";
    for (size_t i = 0; i < bars.size(); ++i) {
        const Bar& b = bars[i];
        int y = top + static_cast<int>(i) * row;
        double w = b.value / max * plot_w;
        std::string tip =
            b.tooltip.empty() ? b.label + ": " + num(b.value) + " " + std::string(unit) : b.tooltip;
        o += "<text x=\"" + std::to_string(label_w - 6) + "\" y=\"" + std::to_string(y + 15) +
             "\" text-anchor=\"end\" font-size=\"12\">" + html_escape(b.label) + "</text>";
        o += "<rect x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" +
             fmt("%.1f", std::max(w, 1.0)) + "\" height=\"" + std::to_string(row - 6) + "\" fill=\"" +
             kBarColor + "\"><title>" + html_escape(tip) + "</title></rect>";
        o += "<text x=\"" + fmt("%.1f", label_w + std::max(w, 1.0) + 4) + "\" y=\"" + std::to_string(y + 15) +
             "\" font-size=\"11\">" + html_escape(num(b.value)) + "</text>";
    }
    return o + "</svg>";
}

std::string svg_column_chart(const std::vector<Bar>& bars, std::string_view y_label, bool log_y) {
    const int left = 60, bottom = 70, top = 10, plot_h = 220;
    const int col = std::max(12, std::min(48, 720 / std::max<int>(1, static_cast<int>(bars.size()))));
    const int w = left + col * static_cast<int>(bars.size()) + 20;
    double max = 0;
    for (const auto& b : bars) max = std::max(max, b.value);
    auto scale = [&](double v) {
        if (v <= 0 || max <= 0) return 0.0;
        return log_y ? std::log10(v + 1) / std::log10(max + 1) * plot_h : v / max * plot_h;
    };
    std::string o = "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(w) +
                    "\" height=\"" + std::to_string(top + plot_h + bottom) + "\">";
    o += "<line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(top + plot_h) + "\" x2=\"" +
         std::to_string(w - 10) + "\" y2=\"" + std::to_string(top + plot_h) + "\" stroke=\"#444\"/>";
    o += "<text x=\"12\" y=\"" + std::to_string(top + plot_h / 2) +
         "\" font-size=\"11\" transform=\"rotate(-90 12 " + std::to_string(top + plot_h / 2) +
         ")\" text-anchor=\"middle\">" + html_escape(y_label) + (log_y ? " (log)" : "") + "</text>";
    o += "<text x=\"" + std::to_string(left - 4) + "\" y=\"" + std::to_string(top + 10) +
         "\" font-size=\"10\" text-anchor=\"end\">" + num(max) + "</text>";
    for (size_t i = 0; i < bars.size(); ++i) {
        const Bar& b = bars[i];
        double hgt = scale(b.value);
        int x = left + static_cast<int>(i) * col;
        std::string tip = b.tooltip.empty() ? b.label + ": " + num(b.value) : b.tooltip;
        o += "<rect x=\"" + std::to_string(x + 1) + "\" y=\"" + fmt("%.1f", top + plot_h - hgt) +
             "\" width=\"" + std::to_string(col - 2) + "\" height=\"" + fmt("%.1f", hgt) + "\" fill=\"" +
             kBarColor + "\"><title>" + html_escape(tip) + "</title></rect>";
        int ly = top + plot_h + 8;
        o += "<text x=\"" + std::to_string(x + col / 2) + "\" y=\"" + std::to_string(ly) +
             "\" font-size=\"10\" text-anchor=\"end\" transform=\"rotate(-60 " + std::to_string(x + col / 2) +
             " " + std::to_string(ly) + ")\">" + html_escape(b.label) + "</text>";
    }
    return o + "</svg>";
}

}  // namespace ringscope::sinks
