// The profile of one input file (ProfileReport's state): the roles of its event types, its tasks
// with their open pairs and figures. profile_report.cpp records the events, profile_printing.cpp
// prints the result.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <ringscope/task_state.hpp>

#include "profile_report.hpp"
#include "profile_stacks.hpp"

namespace ringscope::sched::profile {

// What decides how an event is handled, printed and sorted.
enum class Kind { other, sched_switch, sched_wakeup, softirq, function, syscall, process_exec, kernel_stack };

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

// A kernel_stack's caller bytes kept until the pair or event it belongs to is known.
struct PendingStack {
    std::string caller;
    uint64_t ts = 0;
};

// An open pair: a start event waiting for its end, with the stack that followed it.
struct Start {
    int role;
    uint64_t search_val, val, ts;
    int cpu;
    bool migrate;
    uint64_t serial;  // identifies the start for Task::last_start
    std::optional<PendingStack> stack;
};

struct Figures {
    uint64_t count = 0, total = 0, max = 0, ts_max = 0, min = 0, ts_min = 0;
    uint64_t last_time = 0;  // the last pair's time, for a stack that follows its end
    StackSet stacks;
};

// Figures are kept by the start event's role and the values it was started with.
using FigureKey = std::tuple<int, uint64_t, uint64_t>;  // role, search value, value

struct Task {
    int pid = 0;
    bool sleeping = false;
    std::optional<std::string> comm;  // from the sched events; else the file's saved cmdlines
    std::vector<Start> starts;
    std::map<FigureKey, Figures> figures;
    // Where the next kernel_stack of this task goes (trace-cmd's proxy, last_start, last_event):
    // the woken task of a wakeup, the pair just started, the line just counted; else it waits in
    // last_stack for a funcgraph_entry.
    Task* proxy = nullptr;
    uint64_t last_start = 0;
    Figures* last_event = nullptr;
    std::optional<PendingStack> last_stack;
    uint64_t last_stack_serial = 0;
};

class FileProfile {
  public:
    using Options = ProfileReport::Options;
    FileProfile(const TraceContext& ctx, const Options& options);
    const TraceContext* context() const noexcept { return ctx_; }
    void record(const Event& ev);
    // Throws std::runtime_error when the events could not be profiled (trace-cmd died on them).
    void print(TextBuffer& out);

  private:
    int add_role(std::string_view system, std::string_view name, Kind kind);
    void mate(int start, std::string_view pid_field, std::string_view end_match, int end,
              std::string_view start_match, bool migrate, bool global = false);
    void add_hooks(const std::string& text);
    int role_of(const EventType& type);
    Task& task(int pid);
    Task& event_task(const Role& r, const Event& ev, int pid);
    Start& add_start(Task& t, int role, const Event& ev, uint64_t search_val, uint64_t val);
    Figures* close_start(Task& t, int role, uint64_t ts, uint64_t search_val);
    void drop_starts(int cpu);
    Task* on_pair_event(int role, const Event& ev, int pid);
    void on_switch(const Event& ev);
    void on_wakeup(const Event& ev, int pid);
    void on_exec(const Role& r, const Event& ev, int pid);
    void on_stack(const Role& r, const Event& ev, int pid);
    void on_fgraph_entry(int role, const Event& ev, int pid);
    std::string raw_comm(const Event& ev, const FieldHandle& field) const;
    void print_task(const Task& t, TextBuffer& out) const;
    void print_figures(const std::map<FigureKey, Figures>& figures, TextBuffer& out) const;
    void print_groups(TextBuffer& out) const;
    void append_label(const Role& r, uint64_t val, TextBuffer& out) const;

    const TraceContext* ctx_;
    Options options_;
    std::vector<Role> roles_;
    std::unordered_map<uint32_t, int> role_by_id_;
    std::unordered_map<int, Task> tasks_;  // node-based: Task pointers stay valid
    int switch_ = -1, wakeup_ = -1, stack_ = -1, fgraph_entry_ = -1, fgraph_exit_ = -1;
    FieldHandle prev_comm_, next_comm_, wakeup_comm_;
    std::unique_ptr<TaskStateNames> states_;
    uint64_t serial_ = 0;
    std::optional<std::string> failure_;  // why the profile cannot be printed
};

}  // namespace ringscope::sched::profile
