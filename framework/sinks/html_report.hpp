// The results of a run as HTML for its report page: the viewer's offline page (framework/view/
// view_export.hpp) with this under it, shown in the page's "Results" tab (web/results.js: sorting,
// times that open the timeline there). Inline SVG charts, no script of its own.
// Sections: summary (inputs, time span, events per type), sched latency (statistics, log-scale
// histogram, worst wakeups, per task), per-CPU utilization windows (sched.timeline), KVM exits by
// reason with the guest functions behind them, then any other analysis's tables as they come.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "framework/sinks/event_sink.hpp"

namespace ringscope::sinks {

// The event pass's totals (fed like any sink; writes nothing itself).
class RunSummary final : public EventSink {
  public:
    struct Input {
        std::string name, path;
        int cpus = 0;
        uint64_t events = 0, first_ts = 0, last_ts = 0;
        std::map<int, uint64_t> per_cpu;
    };

    Status add_input(int input, const std::string& input_name, const std::string& path, int cpus) override;
    void on_event(int input, const Event& ev) override;
    Status finish() override { return {}; }

    const std::map<int, Input>& inputs() const noexcept { return inputs_; }
    // "system/name" -> count, over all inputs.
    std::map<std::string, uint64_t> event_counts() const;
    uint64_t total_events() const noexcept { return total_; }

  private:
    std::map<int, Input> inputs_;
    // Per type seen: its "system/name" (copied, the types die with their trace) and count.
    std::map<const EventType*, std::pair<std::string, uint64_t>> by_type_;
    uint64_t total_ = 0;
    int last_input_ = -1;
    Input* last_input_state_ = nullptr;
    struct Recent {
        const EventType* type = nullptr;
        std::pair<std::string, uint64_t>* count = nullptr;
    } recent_[2];  // the types of the last two events
};

using NamedResult = std::pair<std::string, nlohmann::ordered_json>;

// <section id="results" hidden>...</section>.
std::string render_results_html(const std::string& title, const RunSummary& summary,
                                const std::vector<NamedResult>& results);

}  // namespace ringscope::sinks
