#include "framework/perfetto/ftrace_schema.hpp"

#include <array>

namespace ringscope::perfetto {
namespace {

using P = ProtoType;

// sched.proto
constexpr TypedField kSchedSwitch[] = {{"prev_comm", 1, P::string}, {"prev_pid", 2, P::int32},
                                       {"prev_prio", 3, P::int32},  {"prev_state", 4, P::int64},
                                       {"next_comm", 5, P::string}, {"next_pid", 6, P::int32},
                                       {"next_prio", 7, P::int32}};
// sched_wakeup, sched_waking and sched_wakeup_new share a layout.
constexpr TypedField kSchedWakeup[] = {{"comm", 1, P::string},
                                       {"pid", 2, P::int32},
                                       {"prio", 3, P::int32},
                                       {"success", 4, P::int32},
                                       {"target_cpu", 5, P::int32}};
constexpr TypedField kSchedBlockedReason[] = {
    {"pid", 1, P::int32}, {"caller", 2, P::ksym}, {"io_wait", 3, P::uint32}};
constexpr TypedField kSchedProcessExec[] = {
    {"filename", 1, P::string}, {"pid", 2, P::int32}, {"old_pid", 3, P::int32}};
constexpr TypedField kSchedProcessExit[] = {
    {"comm", 1, P::string}, {"pid", 2, P::int32}, {"tgid", 3, P::int32}, {"prio", 4, P::int32}};
constexpr TypedField kSchedProcessFork[] = {{"parent_comm", 1, P::string},
                                            {"parent_pid", 2, P::int32},
                                            {"child_comm", 3, P::string},
                                            {"child_pid", 4, P::int32}};
constexpr TypedField kSchedProcessFree[] = {
    {"comm", 1, P::string}, {"pid", 2, P::int32}, {"prio", 3, P::int32}};
constexpr TypedField kSchedProcessHang[] = {{"comm", 1, P::string}, {"pid", 2, P::int32}};
// task.proto
constexpr TypedField kTaskNewtask[] = {{"pid", 1, P::int32},
                                       {"comm", 2, P::string},
                                       {"clone_flags", 3, P::uint64},
                                       {"oom_score_adj", 4, P::int32}};
constexpr TypedField kTaskRename[] = {{"pid", 1, P::int32},
                                      {"oldcomm", 2, P::string},
                                      {"newcomm", 3, P::string},
                                      {"oom_score_adj", 4, P::int32}};
// irq.proto
constexpr TypedField kSoftirq[] = {{"vec", 1, P::uint32}};
constexpr TypedField kIrqHandlerEntry[] = {
    {"irq", 1, P::int32}, {"name", 2, P::string}, {"handler", 3, P::uint32}};
constexpr TypedField kIrqHandlerExit[] = {{"irq", 1, P::int32}, {"ret", 2, P::int32}};
// power.proto
constexpr TypedField kCpuFrequency[] = {{"state", 1, P::uint32}, {"cpu_id", 2, P::uint32}};
constexpr TypedField kCpuFrequencyLimits[] = {
    {"min_freq", 1, P::uint32}, {"max_freq", 2, P::uint32}, {"cpu_id", 3, P::uint32}};
constexpr TypedField kCpuIdle[] = {{"state", 1, P::uint32}, {"cpu_id", 2, P::uint32}};
constexpr TypedField kClock[] = {{"name", 1, P::string}, {"state", 2, P::uint64}, {"cpu_id", 3, P::uint64}};
constexpr TypedField kSuspendResume[] = {
    {"action", 1, P::string}, {"val", 2, P::int32}, {"start", 3, P::uint32}};
// ftrace.proto: the trace_marker text (atrace-style markers are parsed from buf).
constexpr TypedField kPrint[] = {{"ip", 1, P::uint64}, {"buf", 2, P::string}};
// workqueue.proto
constexpr TypedField kWorkqueueWork[] = {{"work", 1, P::uint64}, {"function", 2, P::ksym}};
constexpr TypedField kWorkqueueQueueWork[] = {{"work", 1, P::uint64},
                                              {"function", 2, P::ksym},
                                              {"workqueue", 3, P::string},
                                              {"req_cpu", 4, P::int32},
                                              {"cpu", 5, P::int32}};
// raw_syscalls.proto (sys_enter's args have no slot there: it stays generic)
constexpr TypedField kSysExit[] = {{"id", 1, P::int64}, {"ret", 2, P::int64}};
// kvm.proto: the arm64 layouts (x86's kvm_exit/kvm_entry have other fields and stay generic)
constexpr TypedField kKvmEntry[] = {{"vcpu_pc", 1, P::uint64}};
constexpr TypedField kKvmExit[] = {{"esr_ec", 1, P::uint32}, {"ret", 2, P::int32}, {"vcpu_pc", 3, P::uint64}};

// FtraceEvent's oneof (ftrace_event.proto).
constexpr std::array kTypedEvents = {
    TypedEvent{"ftrace", "print", 3, kPrint},
    TypedEvent{"sched", "sched_switch", 4, kSchedSwitch},
    TypedEvent{"power", "cpu_frequency", 11, kCpuFrequency},
    TypedEvent{"power", "cpu_frequency_limits", 12, kCpuFrequencyLimits},
    TypedEvent{"power", "cpu_idle", 13, kCpuIdle},
    TypedEvent{"power", "clock_enable", 14, kClock},
    TypedEvent{"power", "clock_disable", 15, kClock},
    TypedEvent{"power", "clock_set_rate", 16, kClock},
    TypedEvent{"sched", "sched_wakeup", 17, kSchedWakeup},
    TypedEvent{"sched", "sched_blocked_reason", 18, kSchedBlockedReason},
    TypedEvent{"sched", "sched_waking", 20, kSchedWakeup},
    TypedEvent{"irq", "softirq_entry", 24, kSoftirq},
    TypedEvent{"irq", "softirq_exit", 25, kSoftirq},
    TypedEvent{"irq", "softirq_raise", 26, kSoftirq},
    TypedEvent{"irq", "irq_handler_entry", 36, kIrqHandlerEntry},
    TypedEvent{"irq", "irq_handler_exit", 37, kIrqHandlerExit},
    TypedEvent{"workqueue", "workqueue_activate_work", 56, kWorkqueueWork},
    TypedEvent{"workqueue", "workqueue_execute_end", 57, kWorkqueueWork},
    TypedEvent{"workqueue", "workqueue_execute_start", 58, kWorkqueueWork},
    TypedEvent{"workqueue", "workqueue_queue_work", 59, kWorkqueueQueueWork},
    TypedEvent{"power", "suspend_resume", 113, kSuspendResume},
    TypedEvent{"sched", "sched_wakeup_new", 114, kSchedWakeup},
    TypedEvent{"task", "task_newtask", 235, kTaskNewtask},
    TypedEvent{"task", "task_rename", 236, kTaskRename},
    TypedEvent{"sched", "sched_process_exec", 237, kSchedProcessExec},
    TypedEvent{"sched", "sched_process_exit", 238, kSchedProcessExit},
    TypedEvent{"sched", "sched_process_fork", 239, kSchedProcessFork},
    TypedEvent{"sched", "sched_process_free", 240, kSchedProcessFree},
    TypedEvent{"sched", "sched_process_hang", 241, kSchedProcessHang},
    TypedEvent{"sched", "sched_process_wait", 242, kSchedProcessFree},
    TypedEvent{"raw_syscalls", "sys_exit", 330, kSysExit},
    TypedEvent{"kvm", "kvm_entry", 376, kKvmEntry},
    TypedEvent{"kvm", "kvm_exit", 377, kKvmExit},
};

}  // namespace

std::span<const TypedEvent> typed_events() noexcept {
    return kTypedEvents;
}

const TypedEvent* find_typed_event(std::string_view system, std::string_view name) noexcept {
    for (const auto& e : kTypedEvents)
        if (e.name == name && e.system == system) return &e;
    return nullptr;
}

}  // namespace ringscope::perfetto
