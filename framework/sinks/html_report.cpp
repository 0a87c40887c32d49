#include "framework/sinks/html_report.hpp"

#include <algorithm>
#include <cstdio>

#include <ringscope/result.hpp>

#include "framework/sinks/html_table.hpp"
#include "framework/sinks/svg_chart.hpp"

namespace ringscope::sinks {

using json = nlohmann::ordered_json;

Status RunSummary::add_input(int input, const std::string& input_name, const std::string& path, int cpus) {
    auto& in = inputs_[input];
    in.name = input_name;
    in.path = path;
    in.cpus = cpus;
    return {};
}

void RunSummary::on_event(int input, const Event& ev) {
    // The input and type of the event before answer most: no map look-up for them (std::map's
    // nodes stay where they are).
    if (input != last_input_ || !last_input_state_) {
        last_input_ = input;
        last_input_state_ = &inputs_[input];
    }
    Input& in = *last_input_state_;
    if (in.events++ == 0) in.first_ts = ev.timestamp();
    in.last_ts = std::max(in.last_ts, ev.timestamp());
    ++in.per_cpu[ev.cpu()];
    if (ev.type_ptr() != recent_[0].type) {
        std::swap(recent_[0], recent_[1]);  // the type before the last comes back often
        if (ev.type_ptr() != recent_[0].type) {
            auto& entry = by_type_[ev.type_ptr()];
            if (entry.second == 0) entry.first = ev.type().system + "/" + ev.type().name;
            recent_[0] = {ev.type_ptr(), &entry};
        }
    }
    ++recent_[0].count->second;
    ++total_;
}

std::map<std::string, uint64_t> RunSummary::event_counts() const {
    std::map<std::string, uint64_t> out;
    for (const auto& [t, v] : by_type_) out[v.first] += v.second;
    return out;
}

namespace {

std::string ns_text(double ns) {
    return format_duration_ns(ns);
}

std::string latency_section(const json& r) {
    std::string o = "<section id=\"sched-latency\"><h2>Scheduler wakeup latency</h2>";
    if (r.contains("sched.latency.overall")) o += table_html(r["sched.latency.overall"]);
    const json hist = r.value("sched.latency.histogram", json::array());
    if (hist.is_array() && !hist.empty()) {
        std::vector<Bar> bars;
        for (const auto& b : hist) {
            double from = b.value("from_ns", 0.0), to = b.value("to_ns", 0.0), n = b.value("count", 0.0);
            bars.push_back({ns_text(from), n,
                            ns_text(from) + " – " + ns_text(to) + ": " + readable_cell("count", b["count"]) +
                                " wakeups"});
        }
        o += "<h3>Histogram (log-scale bins)</h3>" + svg_column_chart(bars, "wakeups", true);
    }
    if (r.contains("sched.latency.worst"))
        o += "<h3>Worst wakeups</h3>" + table_html(r["sched.latency.worst"]);
    if (r.contains("sched.latency.tasks")) o += "<h3>Per task</h3>" + table_html(r["sched.latency.tasks"]);
    return o + "</section>";
}

std::string timeline_section(const json& r) {
    std::string o = "<section id=\"sched-timeline\"><h2>Per-CPU utilization</h2>";
    const json* rows = nullptr;
    for (const auto& [k, v] : r.items())
        if (v.is_array()) rows = &v;
    if (!rows || rows->empty()) return o + "<p class=\"empty\">no windows</p></section>";
    std::vector<Series> series;
    uint64_t t0 = (*rows)[0].value("window_start_ns", uint64_t{0});
    for (const auto& [k, v] : (*rows)[0].items()) {
        if (k.rfind("cpu", 0) != 0) continue;
        Series s;
        s.name = k.substr(0, k.find('_'));
        for (const auto& row : *rows) {
            double x = (row.value("window_start_ns", uint64_t{0}) - t0) / 1e6;
            double y = row.contains(k) && row[k].is_number() ? row[k].get<double>() * 100 : 0;
            s.points.push_back({x, y});
        }
        series.push_back(std::move(s));
    }
    o += svg_line_chart(series, "time since the first window (ms)", "busy %", 100);
    return o + "</section>";
}

std::string kvm_section(const json& r) {
    std::string o = "<section id=\"kvm-exits\"><h2>KVM exits</h2>";
    if (r.contains("kvm.exits.reasons")) {
        std::vector<Bar> bars;
        for (const auto& row : r["kvm.exits.reasons"]) {
            if (bars.size() == 25) break;
            bars.push_back({row.value("reason", std::string("?")), row.value("count", 0.0), ""});
        }
        o += "<h3>Exits by reason</h3>" + svg_hbar_chart(bars, "exits") + table_html(r["kvm.exits.reasons"]);
    }
    if (r.contains("kvm.exits.functions"))
        o += "<h3>Guest functions per reason</h3>" + table_html(r["kvm.exits.functions"], 100);
    if (r.contains("kvm.exits.vcpus")) o += "<h3>Per vCPU</h3>" + table_html(r["kvm.exits.vcpus"]);
    return o + "</section>";
}

std::string generic_section(const std::string& name, const json& r) {
    std::string o = "<section><h2>" + html_escape(name) + "</h2>";
    if (r.is_object()) {
        for (const auto& [k, v] : r.items()) {
            if (v.is_array()) {
                o += "<h3>" + html_escape(k) + "</h3>" + table_html(v);
            } else if (v.is_object()) {
                o += "<h3>" + html_escape(k) + "</h3>" + table_html(json::array({v}));
            } else {
                o += "<p>" + html_escape(k) + ": " + html_escape(readable_cell(k, v)) + "</p>";
            }
        }
    } else {
        o += "<pre>" + html_escape(r.dump(2)) + "</pre>";
    }
    return o + "</section>";
}

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:32px}"
    "h3{font-size:14px;margin:16px 0 6px}table{border-collapse:collapse;font-size:12px;margin:6px 0}"
    "th,td{border:1px solid #ddd;padding:2px "
    "8px;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "th{background:#f3f3f3}.note,.empty{color:#777;font-size:12px}svg.chart{display:block;margin:8px 0}"
    "table.sortable th{cursor:pointer;user-select:none}th[data-dir=desc]::after{content:\" \\25BC\"}"
    "th[data-dir=asc]::after{content:\" \\25B2\"}";

}  // namespace

std::string render_html_report(const std::string& title, const RunSummary& summary,
                               const std::vector<NamedResult>& results) {
    std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
                    html_escape(title) + "</title><style>" + kStyle + "</style></head><body>\n<h1>" +
                    html_escape(title) + "</h1>\n";
    o += "<section "
         "id=\"summary\"><h2>Summary</h2><table><tr><th>input</th><th>file</th><th>CPUs</th><th>events</th>"
         "<th>duration</th></tr>";
    for (const auto& [i, in] : summary.inputs())
        o += "<tr><td>" + html_escape(in.name) + "</td><td>" + html_escape(in.path) +
             "</td><td class=\"n\">" + std::to_string(in.cpus) + "</td><td class=\"n\">" +
             std::to_string(in.events) + "</td><td class=\"n\">" +
             ns_text(static_cast<double>(in.last_ts - in.first_ts)) + "</td></tr>";
    o += "</table>";
    std::vector<std::pair<std::string, uint64_t>> counts;
    for (const auto& [k, n] : summary.event_counts()) counts.push_back({k, n});
    std::sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    std::vector<Bar> bars;
    for (const auto& [k, n] : counts) {
        if (bars.size() == 20) break;
        bars.push_back({k, static_cast<double>(n), ""});
    }
    // "top 20 of N" only when there are more than 20 to choose from.
    const std::string types = std::to_string(counts.size()) + (counts.size() == 1 ? " type" : " types");
    o += "<h3>Events by type (" +
         (counts.size() > bars.size() ? "top " + std::to_string(bars.size()) + " of " : std::string()) +
         types + ", " + std::to_string(summary.total_events()) + " events)</h3>" +
         svg_hbar_chart(bars, "events");
    o += "</section>\n";
    // The charts people look for first: utilization, latency, KVM; other analyses after.
    std::vector<const NamedResult*> ordered;
    for (const char* first : {"sched.timeline", "sched.latency", "kvm.exits"})
        for (const auto& r : results)
            if (r.first == first) ordered.push_back(&r);
    for (const auto& r : results)
        if (r.first != "sched.timeline" && r.first != "sched.latency" && r.first != "kvm.exits")
            ordered.push_back(&r);
    for (const NamedResult* nr : ordered) {
        const auto& [name, r] = *nr;
        if (name == "sched.latency")
            o += latency_section(r);
        else if (name == "sched.timeline")
            o += timeline_section(r);
        else if (name == "kvm.exits")
            o += kvm_section(r);
        else
            o += generic_section(name, r);
        o += "\n";
    }
    o += "<p class=\"note\">Generated by ringscope run. Click a column to sort by it.</p>\n<script>";
    o += kSortScript;
    o += "</script></body></html>\n";
    return o;
}

}  // namespace ringscope::sinks
