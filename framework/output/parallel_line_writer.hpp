// `report -j N`: the event lines are formatted by N threads (N - 1 workers and the caller) and
// still written in the exact order of the merge. The calling thread merges, cuts the events into
// batches in that order (each record's bytes copied in: the streams recycle their pages as the
// merge goes on) and hands the batches to the workers; each batch is formatted into its own memory
// buffer; the batches are written to the output in the order they were cut. Lines the caller must
// format itself, in order (plugin printers with side effects), go into the batch as finished text,
// so they cost no wait. When every slot is in use the caller formats the oldest waiting batch
// instead of waiting. The workers also run the tasks posted to task_runner() (the decompression of
// the next chunk of each CPU), before any batch: the caller merges and waits for those.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include <ringscope/event.hpp>

#include "framework/io/task_runner.hpp"
#include "framework/output/output_buffer.hpp"

namespace ringscope::output {

// One event line of a batch: what the formatting needs besides the payload in LineBatch::bytes.
struct LineJob {
    const EventType* type = nullptr;
    uint32_t source = 0;  // the caller's index (file, buffer)
    uint32_t offset = 0;  // of the payload in LineBatch::bytes
    uint32_t size = 0;
    uint64_t ts = 0;
    int cpu = 0;
    int pid = 0;
    int64_t missed = 0;
    std::string_view comm;  // must stay valid until the batch is written
    bool text = false;      // the payload is a finished line (add_line)
};

struct LineBatch {
    std::vector<uint8_t> bytes;
    std::vector<LineJob> jobs;
    OutputBuffer text;  // the lines, filled by the worker

    std::span<const uint8_t> payload(const LineJob& j) const noexcept {
        return {bytes.data() + j.offset, j.size};
    }
};

class ParallelLineWriter {
  public:
    // Appends the lines of `jobs` (a run of the batch's jobs, none of them a finished line) to
    // `text`; called on several threads at a time, while the caller goes on adding events. Hold
    // what it reads by value: the caller's locals share cache lines with what it writes per event
    // (report -j 2 of a decoded input used 20-30% more CPU reading them through references).
    using Format =
        std::function<void(const LineBatch& batch, std::span<const LineJob> jobs, OutputBuffer& text)>;

    // threads: the formatting threads, the caller included (threads - 1 workers are started).
    ParallelLineWriter(OutputBuffer& out, int threads, Format format);
    ParallelLineWriter(const ParallelLineWriter&) = delete;
    ParallelLineWriter& operator=(const ParallelLineWriter&) = delete;
    ~ParallelLineWriter();  // stops the workers (what was not drained is dropped)

    // Appends one event to the batch being filled; a full batch goes to the workers.
    void add(const LineJob& job, std::span<const uint8_t> payload);
    // Appends a finished line (with its newline), written in its place among the events.
    void add_line(std::string_view line);
    // Waits for every batch handed out so far and writes them all, in order: afterwards the output
    // holds every line added, and the caller may write its own lines in between.
    void drain();
    // Runs tasks on the workers (none with one thread: post() then returns false). The tasks not
    // started when this writer is destroyed are dropped; post() returns false from then on.
    std::shared_ptr<io::TaskRunner> task_runner() const;

  private:
    class Runner;
    bool post(std::function<void()> task);
    static constexpr size_t kBatchEvents = 4096;
    // A batch is formatted in runs of at most this many events, with the posted tasks run in
    // between: the merging thread waits for them sooner than a whole batch takes.
    static constexpr size_t kTaskCheckEvents = 128;
    static constexpr size_t kBatchBytes = 512 * 1024;
    enum class State : uint8_t { filling, queued, done };
    // A cache line of its own: the caller fills one slot while workers format others.
    struct alignas(64) Slot {
        LineBatch batch;
        State state = State::filling;
    };
    Slot& slot(uint64_t n) { return *slots_[n % slots_.size()]; }
    void submit_if_full(const LineBatch& b);
    void submit();                   // the filling slot goes to the workers
    void write_done(bool wait_one);  // writes finished batches in order (waits for, or formats, the oldest)
    void format_batch(LineBatch& b);
    void run_tasks();                  // the tasks posted so far, on this thread
    std::function<void()> pop_task();  // the oldest task or none; mu_ held
    void work();

    OutputBuffer& out_;
    Format format_;
    std::vector<std::unique_ptr<Slot>> slots_;  // a ring: batch n lives in slots_[n % size]
    uint64_t filled_ = 0;                       // batches handed out
    uint64_t taken_ = 0;                        // batches a worker (or the caller) took
    uint64_t written_ = 0;                      // batches written
    bool stop_ = false;
    std::mutex mu_;
    std::condition_variable work_cv_, done_cv_;
    std::deque<std::function<void()>> tasks_;
    std::atomic<size_t> pending_tasks_{0};  // tasks_.size(), read without the lock
    std::shared_ptr<Runner> runner_;
    std::vector<std::thread> workers_;
};

}  // namespace ringscope::output
