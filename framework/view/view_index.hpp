// What `ringscope view` knows of a trace after one pass: per-CPU and per-task summaries in a fixed
// number of time buckets (so memory does not grow with the trace), event counts, dropped events, and
// per bucket where each CPU stream stands (the time -> position index). Queries at a resolution
// coarser than a bucket are answered from the buckets; narrower ones decode just their range again
// from the file (see README.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/filter.hpp>

#include "framework/engine/trace_set.hpp"

namespace ringscope::view {

// A task of the view: a pid of one file (a guest's pids are another machine's). A host task's id
// is its pid; a guest's is FILE * kTaskIdBase + pid (kTaskIdBase: the kernel's PID_MAX_LIMIT).
inline constexpr int32_t kTaskIdBase = 1 << 22;
inline constexpr size_t kMaxTaskFiles = 511;  // ids stay within int32_t
inline int32_t task_id(size_t file, int32_t pid) noexcept {
    return static_cast<int32_t>(file) * kTaskIdBase + pid;
}
inline size_t task_file(int32_t id) noexcept {
    return static_cast<size_t>(id / kTaskIdBase);
}
inline int32_t task_pid(int32_t id) noexcept {
    return id % kTaskIdBase;
}

// A thread state of /api/tasks.
enum class TaskState : uint8_t { unknown, running, runnable, sleeping, blocked };
char state_letter(TaskState s) noexcept;

// One CPU of one buffer of one file: "FILE:CPU" for the top buffer, "FILE/INSTANCE:CPU" for an
// instance (`report` prints both, an instance's lines prefixed "INSTANCE:").
struct CpuLane {
    size_t file = 0;
    size_t buffer = 0;     // 0: the top buffer
    std::string instance;  // the instance's name ("" for the top buffer)
    int cpu = 0;
    size_t source = 0;  // its index among the merge sources of view_buffers()
};

struct CpuBucket {
    uint64_t busy = 0;                 // ns a task other than idle ran
    uint64_t first_busy = UINT64_MAX;  // when the first of it starts
    uint64_t offset = UINT64_MAX;      // the lane's first record at or after the bucket start
    int32_t dominant = 0;              // the pid that ran longest
    int32_t running_at_start = 0;      // the pid running when the bucket starts
    uint32_t starts = 0;               // slices that start in the bucket
    uint32_t events = 0;               // events of the lane in the bucket
};

// A task's bucket where its state changed (buckets between two of these stay in `end` of the first).
struct TaskBucket {
    uint32_t bucket = 0;
    uint32_t changes = 0;
    TaskState start = TaskState::unknown;
    TaskState end = TaskState::unknown;
    uint64_t ns[5] = {};  // per TaskState
};

// Buckets of one level of the task summaries per bucket of the next coarser one.
inline constexpr uint32_t kLevelFactor = 4;

struct TaskSummary {
    int pid = 0;
    std::vector<TaskBucket> buckets;              // in bucket order
    std::vector<std::vector<TaskBucket>> levels;  // levels[i]: kLevelFactor^(i+1) buckets in one
};

struct TaskStats {
    uint64_t run = 0, wait = 0;  // ns running, ns runnable
    uint64_t wakeup_max = 0, wakeup_sum = 0, wakeups = 0;
};

struct FilterMatches {
    uint64_t count = 0, first = 0;
};

struct Dropped {
    std::string lane;
    uint64_t ts = 0;
    int64_t count = 0;
};

// A span of a lane in an answer: [start, end], a pid or a state, and how many were merged.
struct Span {
    uint64_t start = 0, end = 0;
    int32_t value = 0;  // pid (cpus) or TaskState (tasks)
    uint64_t n = 1;
};

class ViewMarks;

class ViewIndex {
  public:
    // Opens FILES (a host and its guests as `report` takes them) and summarises every buffer (top
    // buffers and instances, merged as `report` merges them) in one pass. CPU_BUCKETS /
    // TASK_BUCKETS: the buckets per lane (the resolution of the summaries). MARKS (optional) is fed
    // the events of the same pass (the plugins' timeline marks).
    static Expected<std::unique_ptr<ViewIndex>> open(const std::vector<std::string>& files,
                                                     uint32_t cpu_buckets = 16384,
                                                     uint32_t task_buckets = 16384,
                                                     ViewMarks* marks = nullptr);

    uint64_t start() const noexcept { return start_; }
    uint64_t end() const noexcept { return end_; }
    engine::TraceSet& set() noexcept { return set_; }
    const std::vector<CpuLane>& lanes() const noexcept { return lanes_; }
    const std::map<std::string, uint64_t>& event_counts() const noexcept { return counts_; }
    // The first timestamp of each event ("system:name").
    const std::map<std::string, uint64_t>& event_first() const noexcept { return first_; }
    const std::vector<Dropped>& dropped() const noexcept { return dropped_; }
    const std::map<int, TaskSummary>& tasks() const noexcept { return tasks_; }
    std::string lane_name(size_t lane) const;
    // The process of task ID (an id, as task_id()), from its file's task_newtask and
    // sched_process_exec events (the task itself where they say nothing).
    int32_t tgid(int32_t id) const;
    // The comm of task ID, as its file names it.
    std::string comm(int32_t id);
    uint64_t total_events() const noexcept { return total_; }

    // The running tasks of every lane in [FROM, TO] at WIDTH pixels: the slices that start in one
    // pixel merged into one (the dominant pid, n = how many), at most WIDTH per lane.
    Expected<std::vector<std::vector<Span>>> cpu_slices(uint64_t from, uint64_t to, uint32_t width);
    // Event counts of LANE in [FROM, TO] per pixel: (pixel start, count), non-zero only.
    std::vector<std::pair<uint64_t, uint64_t>> cpu_ticks(size_t lane, uint64_t from, uint64_t to,
                                                         uint32_t width) const;
    // The states of tasks PIDS in [FROM, TO] at WIDTH pixels (same merging, dominant state; PREFER,
    // when given, wherever the pixel has any of it: process_summary.hpp's running threads).
    Expected<std::map<int, std::vector<Span>>> task_states(const std::vector<int>& pids, uint64_t from,
                                                           uint64_t to, uint32_t width,
                                                           TaskState prefer = TaskState::unknown);
    // Whether [FROM, TO] at WIDTH is answered from the summaries (else decoded again).
    bool cpu_from_summary(uint64_t from, uint64_t to, uint32_t width) const;
    // Run, wait and wakeup latency per task in [FROM, TO] (decoded again: exact).
    Expected<std::map<int32_t, TaskStats>> task_stats(uint64_t from, uint64_t to);
    // The events of the first file (its top buffer and instances) the filter accepts (as report
    // applies -F), and the first one's time.
    Expected<FilterMatches> count_matching(FilterSet& filter);
    // When the task's first state change was seen (its first summary bucket's start).
    uint64_t task_first_seen(int pid) const;
    // Where the top-buffer stream of FILE's CPU may start for a range from FROM: the lane's first record of
    // FROM's bucket, when every record before it is earlier (its times never go back); nullopt
    // when it must be read from its start.
    std::optional<uint64_t> start_position(size_t file, int cpu, uint64_t from) const;
    // Every lane's times go forward and no file has instances: the merge of the buffers `report`
    // reads comes in time order, so a reader may stop at its first record past a range.
    bool in_time_order() const noexcept;
    // What the summaries hold (/api/meta's "index", for the benchmark and the tests).
    struct Sizes {
        size_t cpu_bytes = 0;   // the CPU lanes' buckets: fixed per lane
        size_t task_bytes = 0;  // the tasks' entries, every level
        size_t tasks = 0, task_entries = 0;
        size_t dropped_bytes = 0;
    };
    Sizes sizes() const;

    struct Impl;
    ~ViewIndex();

  private:
    ViewIndex();
    // Decodes [FROM, TO] of every buffer again from the bucket before FROM into TRACKER, which
    // starts from the summaries' state there (tasks too when WITH_TASKS).
    Status replay(uint64_t from, uint64_t to, class SchedTracker& tracker, bool with_tasks);
    // The steps of open(): a lane per merge source and the buckets over the time span; a task's
    // run on a lane's CPU buckets; a task's state over its buckets; a record's counts; the lanes'
    // last open buckets closed; the tasks' coarser levels.
    void lay_out(engine::EventMerger& merger, uint32_t cpu_buckets, uint32_t task_buckets);
    void add_slice(size_t lane, int32_t pid, uint64_t a, uint64_t b);
    void add_state(int32_t pid, TaskState s, uint64_t a, uint64_t b, TaskState next);
    void count_record(size_t lane, const engine::Record& r, const EventType& type);
    void close_lanes();
    void build_levels();

    std::unique_ptr<Impl> impl_;
    engine::TraceSet set_;
    uint64_t start_ = 0, end_ = 0;
    uint64_t total_ = 0;
    std::vector<CpuLane> lanes_;
    std::map<std::string, uint64_t> counts_, first_;
    std::vector<Dropped> dropped_;
    std::map<int, TaskSummary> tasks_;
};

}  // namespace ringscope::view
