// plugins/sched: scheduler events. Print overrides as libtraceevent's sched_switch plugin, and the
// scheduler analyses (`ringscope sched latency|runtime|timeline`).
#include <ringscope/plugin.hpp>

#include "profile_report.hpp"
#include "sched_analyses.hpp"
#include "sched_command.hpp"
#include "sched_printer.hpp"
#include "wakeup_latency_report.hpp"

namespace {

// report -w
ringscope::ReportOption wakeup_latencies() {
    ringscope::ReportOption o;
    o.short_name = 'w';
    o.single_input = true;
    o.doc = "wakeup latency on each sched_switch line and its summary (trace-cmd's -w)";
    o.factory = [](std::string_view) { return std::make_unique<ringscope::sched::WakeupLatencyReport>(); };
    return o;
}

// report --profile
ringscope::ReportOption profile(ringscope::sched::ProfileReport::Options options) {
    ringscope::ReportOption o;
    o.long_name = "profile";
    o.replaces_events = true;
    o.doc =
        "per task: event counts and the time between paired events, instead of the events (trace-cmd's "
        "--profile)";
    o.factory = [options](std::string_view) {
        return std::make_unique<ringscope::sched::ProfileReport>(options);
    };
    return o;
}

class SchedPlugin final : public ringscope::Plugin {
  public:
    void register_into(ringscope::PluginRegistry& r) override {
        // Debian 12's trace-cmd (libtraceevent 1.7.1) prints prev_state with a fixed table that is
        // stale on kernels since 4.14 (I as W, X and Z swapped); scripts that parse those letters
        // can ask for them.
        ringscope::PrintOption legacy;
        legacy.plugin = "sched";
        legacy.name = "legacy_states";
        legacy.doc =
            "Print sched_switch prev_state with libtraceevent 1.7's fixed letters (SDTtZXxW), as "
            "trace-cmd 3.1 does";
        const ringscope::PrintOptionValue* legacy_states = &r.add_print_option(std::move(legacy));
        // `report --compat` sets it (an unprefixed -O compat=VERSION): 3.4's plugin drops the "+".
        ringscope::PrintOption compat;
        compat.plugin = "sched";
        compat.name = "compat";
        compat.doc =
            "The trace-cmd release printed as (set by report --compat): 3.4 prints no \"+\" after a "
            "preempted task's state";
        compat.takes_value = true;
        compat.default_value = "3.1";
        const ringscope::PrintOptionValue* compat_value = &r.add_print_option(std::move(compat));
        r.add_handler([legacy_states, compat_value] {
            return std::make_unique<ringscope::sched::SchedPrinter>(legacy_states, compat_value);
        });
        r.add_command({"sched", "scheduler analyses: latency, runtime, timeline",
                       &ringscope::sched::run_sched_command});
        for (auto& spec : ringscope::sched::analysis_specs()) r.add_analysis(std::move(spec));
        r.add_report_option(wakeup_latencies());
        // report --by-comm sets it (with --profile: the tasks of one name merged into a group).
        ringscope::PrintOption by_comm;
        by_comm.plugin = "sched";
        by_comm.name = "by_comm";
        by_comm.doc = "--profile: merge the tasks of one name into a group (report --by-comm)";
        const ringscope::PrintOptionValue* by_comm_value = &r.add_print_option(std::move(by_comm));
        // report -G and -H set these two.
        ringscope::PrintOption global;
        global.plugin = "sched";
        global.name = "global";
        global.doc = "--profile: irq and softirq events per CPU, not per task (report -G)";
        const ringscope::PrintOptionValue* global_value = &r.add_print_option(std::move(global));
        ringscope::PrintOption hooks;
        hooks.plugin = "sched";
        hooks.name = "hooks";
        hooks.doc = "--profile: event pairs to time, one per line (report -H)";
        hooks.takes_value = true;
        const ringscope::PrintOptionValue* hooks_value = &r.add_print_option(std::move(hooks));
        r.add_report_option(profile({legacy_states, by_comm_value, global_value, hooks_value}));
    }
};

}  // namespace

RINGSCOPE_PLUGIN("sched", "0.2.0", SchedPlugin)
