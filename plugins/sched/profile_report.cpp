#include "profile_report.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>

#include <ringscope/context.hpp>
#include <ringscope/event_hook.hpp>

#include "profile_file.hpp"

namespace ringscope::sched {
namespace profile {
namespace {

// trace-cmd keeps prev_state & (TASK_STATE_MAX - 1) with TASK_STATE_MAX 1024: the preemption bit
// above the reported states stays in, so a preempted task counts as one that went to sleep.
constexpr uint64_t kStateMask = 1023;

}  // namespace

FileProfile::FileProfile(const TraceContext& ctx, const Options& options) : ctx_(&ctx), options_(options) {
    const int irq_entry = add_role("irq", "irq_handler_entry", Kind::other);
    const int irq_exit = add_role("irq", "irq_handler_exit", Kind::other);
    const int softirq_entry = add_role("irq", "softirq_entry", Kind::softirq);
    const int softirq_exit = add_role("irq", "softirq_exit", Kind::softirq);
    const int softirq_raise = add_role("irq", "softirq_raise", Kind::softirq);
    wakeup_ = add_role("sched", "sched_wakeup", Kind::sched_wakeup);
    switch_ = add_role("sched", "sched_switch", Kind::sched_switch);
    fgraph_entry_ = add_role("ftrace", "funcgraph_entry", Kind::function);
    fgraph_exit_ = add_role("ftrace", "funcgraph_exit", Kind::function);
    const int sys_enter = add_role("raw_syscalls", "sys_enter", Kind::syscall);
    const int sys_exit = add_role("raw_syscalls", "sys_exit", Kind::syscall);
    const int exec = add_role("sched", "sched_process_exec", Kind::process_exec);
    if (exec >= 0) roles_[exec].data = roles_[exec].type->handle("old_pid");
    stack_ = add_role("ftrace", "kernel_stack", Kind::kernel_stack);
    if (stack_ >= 0) roles_[stack_].data = roles_[stack_].type->handle("caller");
    const int function = add_role("ftrace", "function", Kind::function);
    if (function >= 0) roles_[function].data = roles_[function].type->handle("ip");

    if (switch_ >= 0) {
        const EventType& t = *roles_[switch_].type;
        roles_[switch_].pid = t.handle("prev_pid");
        roles_[switch_].data = t.handle("prev_state");
        roles_[switch_].end_match = t.handle("next_pid");
        prev_comm_ = t.handle("prev_comm");
        next_comm_ = t.handle("next_comm");
        states_ = std::make_unique<TaskStateNames>(&t);
    }
    if (switch_ >= 0 && wakeup_ >= 0) {
        // Switch-out -> wakeup (by pid), wakeup -> switch-in (by pid); both may change CPU.
        mate(switch_, "prev_pid", "next_pid", wakeup_, "pid", true);
        mate(wakeup_, "pid", "pid", switch_, "prev_pid", true);
        roles_[wakeup_].data = roles_[wakeup_].type->handle("success");
        wakeup_comm_ = roles_[wakeup_].type->handle("comm");
    }
    const bool global = options_.global && options_.global->set;
    if (irq_entry >= 0 && irq_exit >= 0) mate(irq_entry, "", "irq", irq_exit, "irq", false, global);
    if (softirq_entry >= 0 && softirq_exit >= 0)
        mate(softirq_entry, "", "vec", softirq_exit, "vec", false, global);
    if (softirq_entry >= 0 && softirq_raise >= 0)
        mate(softirq_raise, "", "vec", softirq_entry, "vec", false, global);
    if (fgraph_entry_ >= 0 && fgraph_exit_ >= 0) mate(fgraph_entry_, "", "func", fgraph_exit_, "func", true);
    if (sys_enter >= 0 && sys_exit >= 0) mate(sys_enter, "", "id", sys_exit, "id", true);
    if (options_.hooks && !options_.hooks->value.empty()) add_hooks(options_.hooks->value);
}

// trace-cmd adds each hook's two events again: the new roles shadow the built-in ones (their
// handling and labels), and their pairs are attributed as any pair's.
void FileProfile::add_hooks(const std::string& text) {
    size_t from = 0;
    while (from <= text.size()) {
        const size_t nl = std::min(text.find('\n', from), text.size());
        const auto hook = parse_event_hook(std::string_view(text).substr(from, nl - from));
        from = nl + 1;
        if (!hook) continue;  // report refused it already
        const int start = add_role(hook->start_system.value_or(""), hook->start_event, Kind::other);
        const int end = add_role(hook->end_system.value_or(""), hook->end_event, Kind::other);
        if (start < 0 || end < 0) {
            std::fprintf(stderr, "  Event %s not found\n",
                         (start < 0 ? hook->start_event : hook->end_event).c_str());
            continue;
        }
        auto shadowed = [&](int builtin) {
            return builtin >= 0 &&
                   (roles_[builtin].type == roles_[start].type || roles_[builtin].type == roles_[end].type);
        };
        if (shadowed(switch_)) switch_ = -1;
        if (shadowed(wakeup_)) wakeup_ = -1;
        mate(start, hook->pid.value_or(""), hook->start_match, end, hook->end_match, hook->migrate,
             hook->global);
    }
}

int FileProfile::add_role(std::string_view system, std::string_view name, Kind kind) {
    const EventType* t = ctx_->find_type(system, name);
    if (!t) return -1;
    roles_.emplace_back(t, kind);
    role_by_id_[t->id] = static_cast<int>(roles_.size() - 1);
    return static_cast<int>(roles_.size() - 1);
}

void FileProfile::mate(int start, std::string_view pid_field, std::string_view end_match, int end,
                       std::string_view start_match, bool migrate, bool global) {
    Role& s = roles_[start];
    Role& e = roles_[end];
    const FieldHandle pid = pid_field.empty() ? FieldHandle{} : s.type->handle(pid_field);
    const FieldHandle em = s.type->handle(end_match), sm = e.type->handle(start_match);
    if ((!pid_field.empty() && !pid) || !em || !sm) return;  // a format without the fields: no pair
    s.end = end;
    e.start = start;
    if (pid) s.pid = pid;
    s.end_match = em;
    e.start_match = sm;
    s.migrate = e.migrate = migrate;
    s.global = e.global = global;
}

// Events with no role of their own are counted by their first field (0 when it is not a number).
int FileProfile::role_of(const EventType& type) {
    auto it = role_by_id_.find(type.id);
    if (it != role_by_id_.end()) return it->second;
    Role r{&type, Kind::other};
    if (!type.fields.empty()) r.data = type.handle(type.fields.front().name);
    roles_.push_back(r);
    const int index = static_cast<int>(roles_.size() - 1);
    role_by_id_[type.id] = index;
    return index;
}

Task& FileProfile::task(int pid) {
    Task& t = tasks_[pid];
    t.pid = pid;
    return t;
}

// Global pairs go to pseudo-tasks with trace-cmd's negative pids: -1 "Global Events" (pairs
// that may change CPU), -1-N "Global CPU[N] Events".
Task& FileProfile::event_task(const Role& r, const Event& ev, int pid) {
    if (r.global) {
        Task& t = task(r.migrate ? -1 : -1 - ev.cpu());
        if (!t.comm)
            t.comm = r.migrate ? "Global Events" : "Global CPU[" + std::to_string(ev.cpu()) + "] Events";
        return t;
    }
    return task(r.pid ? static_cast<int>(ev.u64(r.pid)) : pid);
}

Start& FileProfile::add_start(Task& t, int role, const Event& ev, uint64_t search_val, uint64_t val) {
    t.starts.push_back(
        {role, search_val, val, ev.timestamp(), ev.cpu(), roles_[role].migrate, ++serial_, {}});
    return t.starts.back();
}

// The most recent open start of `role` with `search_val` ends at `ts`: its figures, or null when
// there is none.
Figures* FileProfile::close_start(Task& t, int role, uint64_t ts, uint64_t search_val) {
    if (role < 0) return nullptr;
    auto it = std::find_if(t.starts.rbegin(), t.starts.rend(),
                           [&](const Start& s) { return s.role == role && s.search_val == search_val; });
    if (it == t.starts.rend()) return nullptr;
    // Time going backwards between CPUs counts as zero.
    const uint64_t delta = ts >= it->ts ? ts - it->ts : 0;
    Figures& f = t.figures[{role, it->search_val, it->val}];
    ++f.count;
    f.total += delta;
    f.last_time = delta;
    if (delta > f.max) {
        f.max = delta;
        f.ts_max = ts;
    }
    if (f.count == 1 || delta < f.min) {
        f.min = delta;
        f.ts_min = ts;
    }
    if (it->stack) {
        const std::string& caller = it->stack->caller;
        f.stacks.add({reinterpret_cast<const uint8_t*>(caller.data()), caller.size()}, delta, it->stack->ts);
    }
    t.starts.erase(std::next(it).base());
    return &f;
}

// Lost events on a CPU: pairs started there, and all those that may change CPU, cannot be trusted.
void FileProfile::drop_starts(int cpu) {
    for (auto& [pid, t] : tasks_) {
        std::erase_if(t.starts, [&](const Start& s) { return s.migrate || s.cpu == cpu; });
    }
}

void FileProfile::record(const Event& ev) {
    if (failure_) return;
    if (ev.missed_before() != 0) drop_starts(ev.cpu());
    const int role = role_of(ev.type());
    const int pid = ev.pid();
    Task& current = task(pid);  // every current task is listed, even one without events of its own
    const uint64_t stack_before = current.last_stack ? current.last_stack_serial : 0;
    const Role& r = roles_[role];
    if (role == switch_) {
        on_switch(ev);
    } else if (role == wakeup_ && r.start >= 0) {
        on_wakeup(ev, pid);
    } else if (r.kind == Kind::process_exec) {
        on_exec(r, ev, pid);
    } else if (role == stack_) {
        on_stack(r, ev, pid);
    } else if (role == fgraph_entry_ && r.end >= 0) {
        on_fgraph_entry(role, ev, pid);
    } else {
        Task* t = on_pair_event(role, ev, pid);
        if (role == fgraph_exit_ && r.start >= 0) t->last_event = nullptr;  // no stacks on exits
    }
    // A stack kept for a funcgraph_entry lasts until the task's next event.
    if (stack_before && current.last_stack && current.last_stack_serial == stack_before)
        current.last_stack.reset();
}

// A pair's end and/or start, else an event counted by its value. The task whose next stack
// belongs to the event (trace-cmd's handle_event_data) is returned.
Task* FileProfile::on_pair_event(int role, const Event& ev, int pid) {
    const Role& r = roles_[role];
    Task* t = nullptr;
    if (r.start >= 0) {
        t = &event_task(r, ev, pid);
        t->last_event = close_start(*t, r.start, ev.timestamp(), ev.u64(r.start_match));
        t->last_start = 0;
    }
    if (r.end >= 0) {
        t = &event_task(r, ev, pid);
        const uint64_t v = ev.u64(r.end_match);
        t->last_start = add_start(*t, role, ev, v, v).serial;
        t->last_event = nullptr;
    }
    if (t) return t;
    t = &task(pid);
    t->proxy = nullptr;
    t->last_start = 0;
    const uint64_t v = r.data ? ev.u64(r.data) : 0;
    Figures& f = t->figures[{role, v, v}];
    ++f.count;
    t->last_event = &f;
    return t;
}

void FileProfile::on_switch(const Event& ev) {
    const Role& r = roles_[switch_];
    const uint64_t prev_pid = ev.u64(r.pid), next_pid = ev.u64(r.end_match);
    const uint64_t prev_state = ev.u64(r.data) & kStateMask;
    Task& prev = task(static_cast<int>(prev_pid));
    if (!prev.comm) prev.comm = raw_comm(ev, prev_comm_);
    prev.sleeping = prev_state != 0;
    prev.last_start = add_start(prev, switch_, ev, prev_pid, prev_state).serial;
    prev.last_event = nullptr;
    Task& next = task(static_cast<int>(next_pid));
    if (!next.comm) next.comm = raw_comm(ev, next_comm_);
    // Blocked tasks come back through a wakeup, preempted ones straight from their switch-out.
    close_start(next, wakeup_ >= 0 && roles_[wakeup_].start >= 0 ? wakeup_ : -1, ev.timestamp(), next_pid);
    close_start(next, switch_, ev.timestamp(), next_pid);
}

// The stacks that follow a wakeup belong to the woken task.
void FileProfile::on_wakeup(const Event& ev, int pid) {
    const Role& r = roles_[wakeup_];
    if (r.data && ev.u64(r.data) == 0) return;  // an unsuccessful wakeup
    Task& waker = task(pid);
    const uint64_t woken = ev.u64(r.pid);
    Task& t = task(static_cast<int>(woken));
    if (!t.comm) t.comm = raw_comm(ev, wakeup_comm_);
    if (!t.sleeping) {
        waker.proxy = nullptr;
        waker.last_start = 0;
        waker.last_event = nullptr;
        return;
    }
    t.sleeping = false;
    waker.proxy = &t;
    close_start(t, switch_, ev.timestamp(), woken);
    t.last_start = add_start(t, wakeup_, ev, woken, woken).serial;
    t.last_event = nullptr;
}

// An exec renames the task: its name is taken again from the next sched event.
void FileProfile::on_exec(const Role& r, const Event& ev, int pid) {
    task(r.data ? static_cast<int>(ev.u64(r.data)) : pid).comm.reset();
}

// A kernel_stack goes to the pair its task (or the task it woke) just started, else to the event
// line it just counted or ended, else it waits for a funcgraph_entry of the task.
void FileProfile::on_stack(const Role& r, const Event& ev, int pid) {
    Task& current = task(pid);
    current.last_stack.reset();
    Task* t = &current;
    if (t->proxy) t = std::exchange(current.proxy, nullptr);
    Start* start = nullptr;
    if (t->last_start) {
        auto it = std::find_if(t->starts.begin(), t->starts.end(),
                               [&](const Start& s) { return s.serial == t->last_start; });
        if (it != t->starts.end()) start = &*it;
    }
    const auto payload = ev.payload();
    const size_t offset = std::min<size_t>(r.data.offset, payload.size());
    PendingStack stack{
        std::string(reinterpret_cast<const char*>(payload.data()) + offset, payload.size() - offset),
        ev.timestamp()};
    if (stack.caller.size() < sizeof(int)) {
        // trace-cmd 3.1.6 dies here ("Stack size of less than sizeof(int)??", exit 255).
        char where[96];
        std::snprintf(where, sizeof where,
                      "kernel_stack on cpu %d at %" PRIu64 " ns has %zu bytes of callers", ev.cpu(),
                      ev.timestamp(), stack.caller.size());
        failure_ = std::string(where) + ", fewer than an int: no profile (trace-cmd stops there too)";
        return;
    }
    if (!start && !t->last_event) {
        current.last_stack = std::move(stack);
        current.last_stack_serial = ++serial_;
        return;
    }
    if (start) {
        start->stack = std::move(stack);
        t->last_start = 0;
        t->last_event = nullptr;
        return;
    }
    Figures* f = std::exchange(t->last_event, nullptr);
    f->stacks.add({reinterpret_cast<const uint8_t*>(stack.caller.data()), stack.caller.size()}, f->last_time,
                  stack.ts);
}

// Stacks come before the function graph's entry: the one the task kept goes to the entry's pair.
void FileProfile::on_fgraph_entry(int role, const Event& ev, int pid) {
    const Role& r = roles_[role];
    Task& t = event_task(r, ev, pid);
    const uint64_t v = ev.u64(r.end_match);
    Start& start = add_start(t, role, ev, v, v);
    t.last_event = nullptr;
    if (t.last_stack) {
        start.stack = std::move(t.last_stack);
        t.last_stack.reset();
    }
    t.last_start = 0;  // later stacks do not belong to the entry
}

// The field's bytes as they are in the record, up to a NUL (trace-cmd copies the field, it does
// not follow a __data_loc).
std::string FileProfile::raw_comm(const Event& ev, const FieldHandle& field) const {
    const auto payload = ev.payload();
    if (!field || field.offset > payload.size()) return {};
    const size_t n = std::min<size_t>(field.size, payload.size() - field.offset);
    const char* p = reinterpret_cast<const char*>(payload.data() + field.offset);
    return std::string(p, strnlen(p, n));
}

}  // namespace profile

ProfileReport::ProfileReport() = default;
ProfileReport::ProfileReport(Options options) : options_(options) {}
ProfileReport::~ProfileReport() = default;

profile::FileProfile& ProfileReport::profile_of(const TraceContext& ctx) {
    if (last_ && last_->context() == &ctx) return *last_;
    for (auto& f : files_) {
        if (f->context() == &ctx) return *(last_ = f.get());
    }
    files_.push_back(std::make_unique<profile::FileProfile>(ctx, options_));
    return *(last_ = files_.back().get());
}

void ProfileReport::on_event(const Event& ev) {
    profile_of(ev.context()).record(ev);
}

void ProfileReport::report_summary(TextBuffer& out) {
    // trace-cmd prints the last input file first.
    for (auto it = files_.rbegin(); it != files_.rend(); ++it) (*it)->print(out);
}

}  // namespace ringscope::sched
