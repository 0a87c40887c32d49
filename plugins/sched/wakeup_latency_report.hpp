// `ringscope report -w` (trace-cmd report -w): each sched_switch that runs a task woken by
// sched_wakeup or sched_wakeup_new gets " Latency: U.NNN usecs" on its line; after the last event
// come the average, maximum and minimum over all such switches and over those to RT tasks.
//
// The rules are trace-cmd 3.1.6's: only printed events count (filters apply), a wakeup without
// success (when the field exists) is ignored, a second wakeup before the switch restarts the clock,
// a task is RT when next_prio <= 99, and nothing happens at all when the file lacks sched_wakeup,
// sched_switch or their pid/prio fields.
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>

#include <ringscope/handler.hpp>

namespace ringscope::sched {

class WakeupLatencyReport final : public EventHandler {
  public:
    std::string_view name() const override { return "sched.wakeup-latency-report"; }
    std::vector<EventMatch> subscriptions() const override {
        return {{"sched", "sched_wakeup"}, {"sched", "sched_wakeup_new"}, {"sched", "sched_switch"}};
    }
    void begin(const TraceContext& ctx) override;
    void on_event(const Event& ev) override;                        // the wakeups
    void annotate_line(const Event& ev, TextBuffer& out) override;  // the switches
    void report_summary(TextBuffer& out) override;

  private:
    struct Timings {
        uint64_t total = 0, count = 0;
        uint64_t max = 0, max_ts = 0;
        uint64_t min = std::numeric_limits<uint64_t>::max(), min_ts = 0;
        void add(uint64_t latency, uint64_t ts);
        void append(TextBuffer& out) const;
    };
    struct WakeupType {
        const EventType* type = nullptr;
        FieldHandle pid, success;
    };

    bool enabled_ = false;
    WakeupType wakeup_, wakeup_new_;
    const EventType* switch_ = nullptr;
    FieldHandle next_pid_, next_prio_;
    std::unordered_map<uint32_t, uint64_t> woken_;  // pid -> time of its last wakeup
    Timings all_, rt_;
};

}  // namespace ringscope::sched
