// `ringscope report --profile` (trace-cmd report --profile): instead of the events, per task the
// events it had, counted by a value, and for events that pair up (a start and its end) how long the
// pairs took (count, total, average, maximum and minimum with their timestamps):
//
//   sched_switch:STATE   switch-out of the task -> its wakeup (slept, blocked) or its next
//                        switch-in (preempted: waited on the run queue), by the state it left in
//   sched_wakeup:PID     wakeup -> switch-in (wakeup latency)
//   irq_handler_entry:IRQ -> irq_handler_exit, softirq_raise:VEC -> softirq_entry -> softirq_exit,
//   sys_enter -> sys_exit, funcgraph_entry -> funcgraph_exit
//
// Every other event is counted by the value of its first field. The rules are trace-cmd 3.1.6's
// (see profile_report.cpp); the state names come from the event's format, not trace-cmd's stale
// letters (-O sched:legacy_states prints trace-cmd's: K for I, W for R+). --by-comm merges the tasks
// of one name into a "group:" (in name order; trace-cmd's order is its memory's). -G puts the irq
// and softirq pairs in "Global CPU[N] Events" blocks before the tasks; -H adds pairs of the user's
// (<ringscope/event_hook.hpp>), which take an event's place as trace-cmd's do (a hook on
// sched_switch replaces its own handling). The kernel_stack events that follow an event are printed
// under its line as a tree of call chains (profile_stacks.hpp).
#pragma once

#include <memory>
#include <vector>

#include <ringscope/handler.hpp>
#include <ringscope/plugin.hpp>

namespace ringscope::sched {

namespace profile {
class FileProfile;
}

class ProfileReport final : public EventHandler {
  public:
    // Print options the framework owns and sets before the first event (null: off).
    struct Options {
        const PrintOptionValue* legacy_states = nullptr;  // -O sched:legacy_states
        const PrintOptionValue* by_comm = nullptr;        // report --by-comm
        const PrintOptionValue* global = nullptr;         // report -G
        const PrintOptionValue* hooks = nullptr;          // report -H, one per line
    };
    ProfileReport();
    explicit ProfileReport(Options options);
    ~ProfileReport() override;

    std::string_view name() const override { return "sched.profile-report"; }
    std::vector<EventMatch> subscriptions() const override { return {{"", ""}}; }
    void on_event(const Event& ev) override;
    void report_summary(TextBuffer& out) override;

  private:
    using FileProfile = profile::FileProfile;
    FileProfile& profile_of(const TraceContext& ctx);

    Options options_;
    std::vector<std::unique_ptr<FileProfile>> files_;  // in the order their first event came
    FileProfile* last_ = nullptr;
};

}  // namespace ringscope::sched
