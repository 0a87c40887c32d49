// The compact lines libtraceevent's sched_switch plugin prints for sched_switch, sched_wakeup and
// sched_wakeup_new ("bash:2954 [120] S ==> swapper/1:0 [120]"), registering the names these
// events carry as it goes. Task states come from the event's format (see TaskStateNames).
#pragma once

#include <memory>
#include <unordered_map>

#include <ringscope/handler.hpp>
#include <ringscope/plugin.hpp>

#include <ringscope/task_state.hpp>

namespace ringscope::sched {

class SchedPrinter final : public EventHandler {
  public:
    // legacy_states: the print option sched:legacy_states (null: states from the format);
    // compat: sched:compat, the trace-cmd release printed as (null: 3.1).
    explicit SchedPrinter(const PrintOptionValue* legacy_states = nullptr,
                          const PrintOptionValue* compat = nullptr)
        : legacy_states_(legacy_states), compat_(compat) {}
    std::string_view name() const override { return "sched-print"; }
    std::vector<EventMatch> subscriptions() const override {
        return {{"sched", "sched_switch"}, {"sched", "sched_wakeup"}, {"sched", "sched_wakeup_new"}};
    }
    bool overrides_print() const override { return true; }
    bool print(const Event& ev, PrintContext& pc, TextBuffer& out) override;

  private:
    struct SwitchFields {
        FieldHandle prev_pid, prev_comm, prev_prio, prev_state, next_pid, next_comm, next_prio;
        std::unique_ptr<TaskStateNames> states;
    };
    struct WakeupFields {
        FieldHandle pid, comm, prio, success, target_cpu;
    };
    const SwitchFields& switch_fields(const EventType& t);
    const WakeupFields& wakeup_fields(const EventType& t);
    void print_switch(const Event& ev, PrintContext& pc, TextBuffer& out);
    void print_wakeup(const Event& ev, PrintContext& pc, TextBuffer& out);

    const PrintOptionValue* legacy_states_;
    const PrintOptionValue* compat_;
    // Handles are looked up once per event type (several files may have several types).
    std::unordered_map<const EventType*, SwitchFields> switch_;
    std::unordered_map<const EventType*, WakeupFields> wakeup_;
};

}  // namespace ringscope::sched
