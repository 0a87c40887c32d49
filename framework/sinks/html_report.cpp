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
    if (r.contains("sched.latency.overall"))
        o += table_html(r["sched.latency.overall"], "sched.latency.overall");
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
        o += "<h3>Worst wakeups</h3>" + table_html(r["sched.latency.worst"], "sched.latency.worst");
    if (r.contains("sched.latency.tasks"))
        o += "<h3>Per task</h3>" + table_html(r["sched.latency.tasks"], "sched.latency.tasks");
    return o + "</section>";
}

// The windows in time order: the viewer's CPU lanes above draw the same busy time, to the pixel.
std::string timeline_section(const json& r) {
    std::string o = "<section id=\"sched-timeline\"><h2>Per-CPU utilization</h2>";
    const json* rows = nullptr;
    for (const auto& [k, v] : r.items())
        if (v.is_array()) rows = &v;
    if (!rows || rows->empty()) return o + "<p class=\"empty\">no windows</p></section>";
    o += "<p class=\"note\">Busy share of each CPU per window; the CPU lanes of the timeline show it "
         "over time. Click a window's start to see it there.</p>";
    return o + table_html(*rows, "sched.timeline") + "</section>";
}

std::string kvm_section(const json& r) {
    std::string o = "<section id=\"kvm-exits\"><h2>KVM exits</h2>";
    if (r.contains("kvm.exits.reasons")) {
        std::vector<Bar> bars;
        for (const auto& row : r["kvm.exits.reasons"]) {
            if (bars.size() == 25) break;
            bars.push_back({row.value("reason", std::string("?")), row.value("count", 0.0), ""});
        }
        o += "<h3>Exits by reason</h3>" + svg_hbar_chart(bars, "exits") +
             table_html(r["kvm.exits.reasons"], "kvm.exits.reasons");
    }
    if (r.contains("kvm.exits.functions"))
        o += "<h3>Guest functions per reason</h3>" +
             table_html(r["kvm.exits.functions"], "kvm.exits.functions", 100);
    if (r.contains("kvm.exits.vcpus"))
        o += "<h3>Per vCPU</h3>" + table_html(r["kvm.exits.vcpus"], "kvm.exits.vcpus");
    return o + "</section>";
}

std::string generic_section(const std::string& name, const json& r) {
    std::string o = "<section><h2>" + html_escape(name) + "</h2>";
    if (r.is_object()) {
        for (const auto& [k, v] : r.items()) {
            if (v.is_array()) {
                o += "<h3>" + html_escape(k) + "</h3>" + table_html(v, k);
            } else if (v.is_object()) {
                o += "<h3>" + html_escape(k) + "</h3>" + table_html(json::array({v}), k);
            } else {
                o += "<p>" + html_escape(k) + ": " + html_escape(readable_cell(k, v)) + "</p>";
            }
        }
    } else {
        o += "<pre>" + html_escape(r.dump(2)) + "</pre>";
    }
    return o + "</section>";
}

}  // namespace

std::string render_results_html(const std::string& title, const RunSummary& summary,
                                const std::vector<NamedResult>& results) {
    std::string o = "<section id=\"results\" hidden>\n<h1>" + html_escape(title) + "</h1>\n";
    o += "<section id=\"summary\"><h2>Summary</h2>";
    json inputs = json::array();
    for (const auto& [i, in] : summary.inputs())
        inputs.push_back({{"input", in.name},
                          {"file", in.path},
                          {"cpus", in.cpus},
                          {"events", in.events},
                          {"first_ts", in.first_ts},
                          {"last_ts", in.last_ts},
                          {"duration_ns", in.last_ts - in.first_ts}});
    o += table_html(inputs, "summary.inputs");
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
         types + ", " + readable_cell("events", summary.total_events()) + " events)</h3>" +
         svg_hbar_chart(bars, "events");
    o += "</section>\n";
    // The analyses people look for first: latency, utilization, KVM; the others after.
    std::vector<const NamedResult*> ordered;
    for (const char* first : {"sched.latency", "sched.timeline", "kvm.exits"})
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
    o += "<p class=\"note\">Generated by ringscope run. Tables are sorted worst first; click a column to "
         "sort by it, a time to see it on the timeline.</p>\n</section>\n";
    return o;
}

}  // namespace ringscope::sinks
