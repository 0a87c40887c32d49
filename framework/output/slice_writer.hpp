// `report -j N` by time slices (engine/time_slicer.hpp): N threads each take the next slice and
// format its lines into the slice's own memory buffer; the caller writes the slices' text to the
// output in slice order. At most N + 1 slices are in flight (taken and not yet written), so memory
// is bounded by N + 1 slices' text whatever the size of the trace.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "framework/output/output_buffer.hpp"

namespace ringscope::output {

class SliceWriter {
  public:
    // Formats slice INDEX into TEXT on worker WORKER (0 .. threads-1); SLOT (0 .. in_flight() - 1)
    // is the slice's place among those in flight, for the caller's per-slice results. False: the
    // slice is not exact (its text is dropped, and so is every later slice's). May stop early when
    // cancelled() turns true.
    using Produce = std::function<bool(size_t worker, size_t slot, size_t index, OutputBuffer& text)>;
    // On the caller's thread, in slice order, before a finished slice is written: false rejects it
    // (and every later one).
    using Accept = std::function<bool(size_t slot, size_t index)>;

    // TEXT_CAPACITY: the room each slice's buffer starts with (it grows as needed; room never
    // written costs no memory, a buffer that grows copies and touches new memory each time).
    SliceWriter(int threads, size_t text_capacity);
    SliceWriter(const SliceWriter&) = delete;
    SliceWriter& operator=(const SliceWriter&) = delete;
    ~SliceWriter();

    // Runs slices [0, count) and writes the text of each, in order, to OUT until one is not exact
    // or rejected or the output fails. Returns how many were written; the workers have stopped.
    size_t run(size_t count, OutputBuffer& out, const Produce& produce, const Accept& accept);
    bool cancelled() const noexcept { return cancel_.load(std::memory_order_relaxed); }
    // Slices taken and not yet written at most (threads + 1): the SLOT values Produce and Accept see.
    size_t in_flight() const noexcept { return slots_.size(); }

  private:
    enum class State : unsigned char { free, working, done };
    // A cache line of its own: each worker appends to its slot's buffer for every line.
    struct alignas(64) Slot {
        explicit Slot(size_t capacity) : text(capacity) {}
        OutputBuffer text;
        State state = State::free;
        bool exact = false;
    };
    void work(size_t worker, size_t count, const Produce& produce);

    int threads_;
    std::vector<std::unique_ptr<Slot>> slots_;  // slice i lives in slots_[i % size]
    size_t next_ = 0;                           // next slice to take
    size_t written_ = 0;                        // slices written (or given up)
    bool stop_ = false;
    std::atomic<bool> cancel_{false};
    std::mutex mu_;
    std::condition_variable work_cv_, done_cv_;
};

}  // namespace ringscope::output
