#include "wakeup_latency_report.hpp"

#include <ringscope/context.hpp>

namespace ringscope::sched {
namespace {

constexpr int kMaxRtPrio = 99;

// trace-cmd's "%llu.%06llu" of a timestamp: the microseconds are rounded without carrying into
// the seconds (x.9999996 s prints as x.000000), which this keeps.
void append_timestamp(uint64_t ts, TextBuffer& out) {
    out.appendf("%llu.%06llu", static_cast<unsigned long long>(ts / 1000000000),
                static_cast<unsigned long long>(((ts + 500) % 1000000000) / 1000));
}

void append_usecs(uint64_t ns, TextBuffer& out) {
    out.appendf("%llu.%03llu usecs", static_cast<unsigned long long>(ns / 1000),
                static_cast<unsigned long long>(ns % 1000));
}

}  // namespace

void WakeupLatencyReport::Timings::add(uint64_t latency, uint64_t ts) {
    if (latency > max) {
        max = latency;
        max_ts = ts;
    }
    if (latency < min) {
        min = latency;
        min_ts = ts;
    }
    total += latency;
    ++count;
}

void WakeupLatencyReport::Timings::append(TextBuffer& out) const {
    out.append("\nAverage wakeup latency: ");
    append_usecs(total / count, out);
    out.append("\nMaximum Latency: ");
    append_usecs(max, out);
    out.append(" at timestamp: ");
    append_timestamp(max_ts, out);
    out.append("\nMinimum Latency: ");
    append_usecs(min, out);
    out.append(" at timestamp: ");
    append_timestamp(min_ts, out);
    out.append("\n\n");
}

void WakeupLatencyReport::begin(const TraceContext& ctx) {
    enabled_ = false;
    wakeup_ = {ctx.find_type("sched", "sched_wakeup"), {}, {}};
    switch_ = ctx.find_type("sched", "sched_switch");
    if (!wakeup_.type || !switch_) return;
    wakeup_.pid = wakeup_.type->handle("pid");
    wakeup_.success = wakeup_.type->handle("success");
    next_pid_ = switch_->handle("next_pid");
    next_prio_ = switch_->handle("next_prio");
    if (!wakeup_.pid || !next_pid_ || !next_prio_) return;
    wakeup_new_ = {ctx.find_type("sched", "sched_wakeup_new"), {}, {}};
    if (wakeup_new_.type) {
        wakeup_new_.pid = wakeup_new_.type->handle("pid");
        wakeup_new_.success = wakeup_new_.type->handle("success");
        if (!wakeup_new_.pid) return;  // the event without its pid turns -w off, as in trace-cmd
    }
    enabled_ = true;
}

void WakeupLatencyReport::on_event(const Event& ev) {
    if (!enabled_) return;
    const WakeupType* w = ev.id() == wakeup_.type->id                           ? &wakeup_
                          : wakeup_new_.type && ev.id() == wakeup_new_.type->id ? &wakeup_new_
                                                                                : nullptr;
    if (!w) return;
    if (w->success && ev.u64(w->success) == 0) return;
    // A second wakeup before the task runs restarts its clock.
    woken_[static_cast<uint32_t>(ev.u64(w->pid))] = ev.timestamp();
}

void WakeupLatencyReport::annotate_line(const Event& ev, TextBuffer& out) {
    if (!enabled_ || ev.id() != switch_->id) return;
    const bool rt = ev.u64(next_prio_) <= kMaxRtPrio;
    auto it = woken_.find(static_cast<uint32_t>(ev.u64(next_pid_)));
    if (it == woken_.end()) return;
    const uint64_t latency = ev.timestamp() - it->second;  // unsigned, as trace-cmd computes it
    woken_.erase(it);
    out.append(" Latency: ");
    append_usecs(latency, out);
    all_.add(latency, ev.timestamp());
    if (rt) rt_.add(latency, ev.timestamp());
}

void WakeupLatencyReport::report_summary(TextBuffer& out) {
    if (!enabled_ || all_.count == 0) return;
    all_.append(out);
    if (rt_.count == 0) return;
    out.append("RT task timings:\n");
    rt_.append(out);
}

}  // namespace ringscope::sched
