#include "profile_report.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

#include <ringscope/context.hpp>
#include <ringscope/event_hook.hpp>
#include <ringscope/resolver.hpp>

#include <ringscope/task_state.hpp>

namespace ringscope::sched {
namespace {

// trace-cmd keeps prev_state & (TASK_STATE_MAX - 1) with TASK_STATE_MAX 1024: the preemption bit
// above the reported states stays in, so a preempted task counts as one that went to sleep.
constexpr uint64_t kStateMask = 1023;

// What decides how an event is handled, printed and sorted.
enum class Kind { other, sched_switch, sched_wakeup, softirq, function, syscall, process_exec, kernel_stack };

// trace-cmd's softirq names, for a format without a __print_symbolic table for vec.
constexpr const char* kSoftirqNames[] = {"HI",           "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                         "BLOCK_IOPOLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

// One event type of the file and, for the pairs, its partners: it ends the pair of `start` and
// starts the pair of `end`. The start's end_match field is compared with the end's start_match.
struct Role {
    Role(const EventType* t, Kind k) : type(t), kind(k) {}

    const EventType* type;
    Kind kind;
    int start = -1, end = -1;
    FieldHandle pid, start_match, end_match, data;
    bool migrate = false;  // the pair may end on another CPU
    bool global = false;   // the pair belongs to the CPU (or to "Global Events"), not to a task
};

// An open pair: a start event waiting for its end.
struct Start {
    int role;
    uint64_t search_val, val, ts;
    int cpu;
    bool migrate;
};

struct Figures {
    uint64_t count = 0, total = 0, max = 0, ts_max = 0, min = 0, ts_min = 0;
};

// Figures are kept by the start event's role and the values it was started with.
using FigureKey = std::tuple<int, uint64_t, uint64_t>;  // role, search value, value

struct Task {
    int pid = 0;
    bool sleeping = false;
    std::optional<std::string> comm;  // from the sched events; else the file's saved cmdlines
    std::vector<Start> starts;
    std::map<FigureKey, Figures> figures;
};

int64_t as_int64(uint64_t v) {
    return static_cast<int64_t>(v);
}

void append_time(uint64_t ts, TextBuffer& out) {
    // The microseconds round up to 1000000 at the end of a second, as trace-cmd prints them.
    out.appendf("%" PRId64 ".%06" PRId64, as_int64(ts / 1000000000),
                as_int64((ts % 1000000000 + 500) / 1000));
}

}  // namespace

class ProfileReport::FileProfile {
  public:
    FileProfile(const TraceContext& ctx, const Options& options);
    const TraceContext* context() const noexcept { return ctx_; }
    void record(const Event& ev);
    void print(TextBuffer& out);

  private:
    int add_role(std::string_view system, std::string_view name, Kind kind);
    void mate(int start, std::string_view pid_field, std::string_view end_match, int end,
              std::string_view start_match, bool migrate, bool global = false);
    void add_hooks(const std::string& text);
    int role_of(const EventType& type);
    Task& task(int pid);
    Task& event_task(const Role& r, const Event& ev, int pid);
    void add_start(Task& t, int role, const Event& ev, uint64_t search_val, uint64_t val);
    void close_start(Task& t, int role, uint64_t ts, uint64_t search_val);
    void drop_starts(int cpu);
    void on_pair_event(int role, const Event& ev, int pid);
    void on_switch(const Event& ev);
    void on_wakeup(const Event& ev);
    void on_exec(const Role& r, const Event& ev, int pid);
    std::string raw_comm(const Event& ev, const FieldHandle& field) const;
    void print_task(const Task& t, TextBuffer& out) const;
    void print_figures(const std::map<FigureKey, Figures>& figures, TextBuffer& out) const;
    void print_groups(TextBuffer& out) const;
    void append_label(const Role& r, uint64_t val, TextBuffer& out) const;

    const TraceContext* ctx_;
    Options options_;
    std::vector<Role> roles_;
    std::unordered_map<uint32_t, int> role_by_id_;
    std::unordered_map<int, Task> tasks_;
    int switch_ = -1, wakeup_ = -1;
    FieldHandle prev_comm_, next_comm_, wakeup_comm_;
    std::unique_ptr<TaskStateNames> states_;
};

ProfileReport::FileProfile::FileProfile(const TraceContext& ctx, const Options& options)
    : ctx_(&ctx), options_(options) {
    const int irq_entry = add_role("irq", "irq_handler_entry", Kind::other);
    const int irq_exit = add_role("irq", "irq_handler_exit", Kind::other);
    const int softirq_entry = add_role("irq", "softirq_entry", Kind::softirq);
    const int softirq_exit = add_role("irq", "softirq_exit", Kind::softirq);
    const int softirq_raise = add_role("irq", "softirq_raise", Kind::softirq);
    wakeup_ = add_role("sched", "sched_wakeup", Kind::sched_wakeup);
    switch_ = add_role("sched", "sched_switch", Kind::sched_switch);
    const int fgraph_entry = add_role("ftrace", "funcgraph_entry", Kind::function);
    const int fgraph_exit = add_role("ftrace", "funcgraph_exit", Kind::function);
    const int sys_enter = add_role("raw_syscalls", "sys_enter", Kind::syscall);
    const int sys_exit = add_role("raw_syscalls", "sys_exit", Kind::syscall);
    const int exec = add_role("sched", "sched_process_exec", Kind::process_exec);
    if (exec >= 0) roles_[exec].data = roles_[exec].type->handle("old_pid");
    add_role("ftrace", "kernel_stack", Kind::kernel_stack);
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
    if (fgraph_entry >= 0 && fgraph_exit >= 0) mate(fgraph_entry, "", "func", fgraph_exit, "func", true);
    if (sys_enter >= 0 && sys_exit >= 0) mate(sys_enter, "", "id", sys_exit, "id", true);
    if (options_.hooks && !options_.hooks->value.empty()) add_hooks(options_.hooks->value);
}

// trace-cmd adds each hook's two events again: the new roles shadow the built-in ones (their
// handling and labels), and their pairs are attributed as any pair's.
void ProfileReport::FileProfile::add_hooks(const std::string& text) {
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

int ProfileReport::FileProfile::add_role(std::string_view system, std::string_view name, Kind kind) {
    const EventType* t = ctx_->find_type(system, name);
    if (!t) return -1;
    roles_.emplace_back(t, kind);
    role_by_id_[t->id] = static_cast<int>(roles_.size() - 1);
    return static_cast<int>(roles_.size() - 1);
}

void ProfileReport::FileProfile::mate(int start, std::string_view pid_field, std::string_view end_match,
                                      int end, std::string_view start_match, bool migrate, bool global) {
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
int ProfileReport::FileProfile::role_of(const EventType& type) {
    auto it = role_by_id_.find(type.id);
    if (it != role_by_id_.end()) return it->second;
    Role r{&type, Kind::other};
    if (!type.fields.empty()) r.data = type.handle(type.fields.front().name);
    roles_.push_back(r);
    const int index = static_cast<int>(roles_.size() - 1);
    role_by_id_[type.id] = index;
    return index;
}

Task& ProfileReport::FileProfile::task(int pid) {
    Task& t = tasks_[pid];
    t.pid = pid;
    return t;
}

// Global pairs go to pseudo-tasks with trace-cmd's negative pids: -1 "Global Events" (pairs
// that may change CPU), -1-N "Global CPU[N] Events".
Task& ProfileReport::FileProfile::event_task(const Role& r, const Event& ev, int pid) {
    if (r.global) {
        Task& t = task(r.migrate ? -1 : -1 - ev.cpu());
        if (!t.comm)
            t.comm = r.migrate ? "Global Events" : "Global CPU[" + std::to_string(ev.cpu()) + "] Events";
        return t;
    }
    return task(r.pid ? static_cast<int>(ev.u64(r.pid)) : pid);
}

void ProfileReport::FileProfile::add_start(Task& t, int role, const Event& ev, uint64_t search_val,
                                           uint64_t val) {
    t.starts.push_back({role, search_val, val, ev.timestamp(), ev.cpu(), roles_[role].migrate});
}

// The most recent open start of `role` with `search_val` ends at `ts`.
void ProfileReport::FileProfile::close_start(Task& t, int role, uint64_t ts, uint64_t search_val) {
    if (role < 0) return;
    auto it = std::find_if(t.starts.rbegin(), t.starts.rend(),
                           [&](const Start& s) { return s.role == role && s.search_val == search_val; });
    if (it == t.starts.rend()) return;
    // Time going backwards between CPUs counts as zero.
    const uint64_t delta = ts >= it->ts ? ts - it->ts : 0;
    Figures& f = t.figures[{role, it->search_val, it->val}];
    ++f.count;
    f.total += delta;
    if (delta > f.max) {
        f.max = delta;
        f.ts_max = ts;
    }
    if (f.count == 1 || delta < f.min) {
        f.min = delta;
        f.ts_min = ts;
    }
    t.starts.erase(std::next(it).base());
}

// Lost events on a CPU: pairs started there, and all those that may change CPU, cannot be trusted.
void ProfileReport::FileProfile::drop_starts(int cpu) {
    for (auto& [pid, t] : tasks_) {
        std::erase_if(t.starts, [&](const Start& s) { return s.migrate || s.cpu == cpu; });
    }
}

void ProfileReport::FileProfile::record(const Event& ev) {
    if (ev.missed_before() != 0) drop_starts(ev.cpu());
    const int role = role_of(ev.type());
    const int pid = ev.pid();
    task(pid);  // every current task is listed, even one without events of its own
    const Role& r = roles_[role];
    if (role == switch_) {
        on_switch(ev);
    } else if (role == wakeup_ && r.start >= 0) {
        on_wakeup(ev);
    } else if (r.kind == Kind::process_exec) {
        on_exec(r, ev, pid);
    } else if (r.kind != Kind::kernel_stack) {
        on_pair_event(role, ev, pid);
    }
}

void ProfileReport::FileProfile::on_pair_event(int role, const Event& ev, int pid) {
    const Role& r = roles_[role];
    bool paired = false;
    if (r.start >= 0) {
        close_start(event_task(r, ev, pid), r.start, ev.timestamp(), ev.u64(r.start_match));
        paired = true;
    }
    if (r.end >= 0) {
        const uint64_t v = ev.u64(r.end_match);
        add_start(event_task(r, ev, pid), role, ev, v, v);
        paired = true;
    }
    if (paired) return;
    const uint64_t v = r.data ? ev.u64(r.data) : 0;
    ++task(pid).figures[{role, v, v}].count;
}

void ProfileReport::FileProfile::on_switch(const Event& ev) {
    const Role& r = roles_[switch_];
    const uint64_t prev_pid = ev.u64(r.pid), next_pid = ev.u64(r.end_match);
    const uint64_t prev_state = ev.u64(r.data) & kStateMask;
    Task& prev = task(static_cast<int>(prev_pid));
    if (!prev.comm) prev.comm = raw_comm(ev, prev_comm_);
    prev.sleeping = prev_state != 0;
    add_start(prev, switch_, ev, prev_pid, prev_state);
    Task& next = task(static_cast<int>(next_pid));
    if (!next.comm) next.comm = raw_comm(ev, next_comm_);
    // Blocked tasks come back through a wakeup, preempted ones straight from their switch-out.
    close_start(next, wakeup_ >= 0 && roles_[wakeup_].start >= 0 ? wakeup_ : -1, ev.timestamp(), next_pid);
    close_start(next, switch_, ev.timestamp(), next_pid);
}

void ProfileReport::FileProfile::on_wakeup(const Event& ev) {
    const Role& r = roles_[wakeup_];
    if (r.data && ev.u64(r.data) == 0) return;  // an unsuccessful wakeup
    const uint64_t pid = ev.u64(r.pid);
    Task& t = task(static_cast<int>(pid));
    if (!t.comm) t.comm = raw_comm(ev, wakeup_comm_);
    if (!t.sleeping) return;
    t.sleeping = false;
    close_start(t, switch_, ev.timestamp(), pid);
    add_start(t, wakeup_, ev, pid, pid);
}

// An exec renames the task: its name is taken again from the next sched event.
void ProfileReport::FileProfile::on_exec(const Role& r, const Event& ev, int pid) {
    task(r.data ? static_cast<int>(ev.u64(r.data)) : pid).comm.reset();
}

// The field's bytes as they are in the record, up to a NUL (trace-cmd copies the field, it does
// not follow a __data_loc).
std::string ProfileReport::FileProfile::raw_comm(const Event& ev, const FieldHandle& field) const {
    const auto payload = ev.payload();
    if (!field || field.offset > payload.size()) return {};
    const size_t n = std::min<size_t>(field.size, payload.size() - field.offset);
    const char* p = reinterpret_cast<const char*>(payload.data() + field.offset);
    return std::string(p, strnlen(p, n));
}

void ProfileReport::FileProfile::append_label(const Role& r, uint64_t val, TextBuffer& out) const {
    if (r.kind == Kind::function) {
        if (auto sym = ctx_->resolvers().lookup(kKernelDomain, val))
            out.appendf("func: %.*s()", static_cast<int>(sym->name.size()), sym->name.data());
        else
            out.appendf("func: 0x%" PRIx64, val);
        return;
    }
    out.append(r.type->name);
    out.push_back(':');
    switch (r.kind) {
        case Kind::sched_switch:
            if (options_.legacy_states && options_.legacy_states->set) {
                // trace-cmd's own letters (TASK_STATE_TO_CHAR_STR of Linux 4.x): K for I, W for R+.
                static constexpr char kStates[] = "RSDTtXZxKWP";
                if (!val) out.push_back('R');
                for (size_t i = 0; val && i + 1 < sizeof kStates - 1; ++i, val >>= 1)
                    if (val & 1) out.push_back(kStates[i + 1]);
                return;
            }
            states_->append(val, out);
            return;
        case Kind::softirq: {
            const ValueTable* names = r.type->table_for("vec", false);
            if (names) {
                for (const auto& [value, name] : names->entries) {
                    if (value != val) continue;
                    out.append(name);
                    return;
                }
            }
            if (static_cast<int>(val) >= 0 &&
                static_cast<int>(val) < static_cast<int>(std::size(kSoftirqNames)))
                out.append(kSoftirqNames[static_cast<int>(val)]);
            else
                out.appendf("%d", static_cast<int>(val));
            return;
        }
        case Kind::syscall:
            out.appendf("%d", static_cast<int>(val));
            return;
        default:
            out.appendf("0x%" PRIx64, val);
    }
}

void ProfileReport::FileProfile::print_task(const Task& t, TextBuffer& out) const {
    out.append("\ntask: ");
    out.append(t.comm ? std::string_view(*t.comm) : ctx_->comm(t.pid));
    out.appendf("-%d\n", t.pid);
    print_figures(t.figures, out);
}

// --by-comm: the tasks whose name the sched events gave, merged by that name as trace-cmd merges
// them (wakeups under one value, switches by state, the rest as they are). trace-cmd lists the
// groups in the order of their addresses in memory (its compare_groups compares pointers); here by
// name.
void ProfileReport::FileProfile::print_groups(TextBuffer& out) const {
    std::map<std::string, std::map<FigureKey, Figures>> groups;
    for (const auto& [pid, t] : tasks_) {
        if (!t.comm || pid < 0) continue;
        auto& g = groups[*t.comm];
        for (const auto& [key, f] : t.figures) {
            FigureKey k = key;
            const Kind kind = roles_[static_cast<size_t>(std::get<0>(key))].kind;
            if (kind == Kind::sched_wakeup) k = {std::get<0>(key), 0, 0};
            if (kind == Kind::sched_switch) k = {std::get<0>(key), std::get<2>(key), std::get<2>(key)};
            Figures& m = g[k];
            if (m.count == 0) {
                m = f;
                continue;
            }
            m.count += f.count;
            m.total += f.total;
            if (f.max > m.max) m.max = f.max, m.ts_max = f.ts_max;
            if (f.min < m.min) m.min = f.min, m.ts_min = f.ts_min;
        }
    }
    for (const auto& [comm, figures] : groups) {
        out.append("\ngroup: ");
        out.append(comm);
        out.push_back('\n');
        print_figures(figures, out);
    }
}

void ProfileReport::FileProfile::print_figures(const std::map<FigureKey, Figures>& figures,
                                               TextBuffer& out) const {
    // sched_switch first (by state), then sched_wakeup, then by event id and longest total.
    std::vector<std::pair<FigureKey, const Figures*>> rows;
    for (const auto& [key, f] : figures) rows.emplace_back(key, &f);
    auto rank = [&](const std::pair<FigureKey, const Figures*>& row) {
        const Role& r = roles_[static_cast<size_t>(std::get<0>(row.first))];
        const int group = r.kind == Kind::sched_switch ? 0 : r.kind == Kind::sched_wakeup ? 1 : 2;
        const uint64_t state = group == 0 ? std::get<2>(row.first) : 0;
        const uint32_t id = group == 2 ? r.type->id : 0;
        return std::make_tuple(group, state, id, ~row.second->total, std::get<1>(row.first),
                               std::get<2>(row.first));
    };
    std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
    for (const auto& [key, f] : rows) {
        out.append("  Event: ");
        append_label(roles_[static_cast<size_t>(std::get<0>(key))], std::get<2>(key), out);
        out.appendf(" (%" PRId64 ")", as_int64(f->count));
        if (f->total) {
            out.appendf(" Total: %" PRId64 " Avg: %" PRId64 " Max: %" PRId64 "(ts:", as_int64(f->total),
                        as_int64(f->total / f->count), as_int64(f->max));
            append_time(f->ts_max, out);
            out.appendf(") Min:%" PRId64 "(ts:", as_int64(f->min));
            append_time(f->ts_min, out);
            out.push_back(')');
        }
        out.push_back('\n');
    }
}

void ProfileReport::FileProfile::print(TextBuffer& out) {
    // The global pseudo-tasks first, each under its name alone and only when it has figures.
    std::vector<const Task*> global;
    for (const auto& [pid, t] : tasks_)
        if (pid < 0 && !t.figures.empty()) global.push_back(&t);
    std::sort(global.begin(), global.end(), [](const Task* a, const Task* b) { return a->pid > b->pid; });
    for (const Task* t : global) {
        out.append(*t->comm);
        out.push_back('\n');
        print_figures(t->figures, out);
    }
    const bool by_comm = options_.by_comm && options_.by_comm->set;
    if (by_comm) print_groups(out);
    std::vector<const Task*> sorted;
    for (const auto& [pid, t] : tasks_)
        if (pid >= 0 && (!by_comm || !t.comm)) sorted.push_back(&t);
    std::sort(sorted.begin(), sorted.end(), [](const Task* a, const Task* b) { return a->pid < b->pid; });
    for (const Task* t : sorted) print_task(*t, out);
}

ProfileReport::ProfileReport() = default;
ProfileReport::ProfileReport(Options options) : options_(options) {}
ProfileReport::~ProfileReport() = default;

ProfileReport::FileProfile& ProfileReport::profile_of(const TraceContext& ctx) {
    if (last_ && last_->context() == &ctx) return *last_;
    for (auto& f : files_) {
        if (f->context() == &ctx) return *(last_ = f.get());
    }
    files_.push_back(std::make_unique<FileProfile>(ctx, options_));
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
