// Resident memory flat in the stream's size for a pass over a mapped trace (TraceBytes::map):
// every kStep bytes the decoder moves, the pages it left more than kKeep behind are given back
// (madvise MADV_DONTNEED). A private read-only file mapping reads a page given back again from
// the file if it is touched again: dropping too much costs time, never a wrong byte.
//
// At each step the file's size is checked too: a file cut short below the mapping would raise
// SIGBUS on the next touch past its new end; instead the step fails and error() names the file
// and the offset. (A cut made after the last check, within a step, still raises SIGBUS: a mapped
// file's own behaviour, which MappedGuard turns into the same kind of error and exit status 1.)
//
// A pass on several threads (psb_parts.hpp, flow -j, report's parts) moves it along the position
// whose output is taken, in stream order: the workers ahead of it read at most the parts in
// flight, a bounded window.
#pragma once

#include <cstddef>
#include <cstdint>

#include <ringscope/error.hpp>

#include "ipt/trace_file.hpp"

namespace ringscope::ipt {

class PagesBehind {
  public:
    static constexpr uint64_t kStep = uint64_t{1} << 20;
    static constexpr uint64_t kKeep = uint64_t{128} << 10;

    enum class Direction { forward, backward };

    // Over bytes, for a decoder going in direction d (nothing to do when bytes are not mapped).
    explicit PagesBehind(const TraceBytes& bytes, Direction d = Direction::forward);

    // The decoder is at offset (from bytes.begin()): true, or false when the file has shrunk
    // (error() says so).
    bool at(uint64_t offset) {
        return forward_ ? (offset < next_ || step(offset)) : (offset >= next_ || step(offset));
    }
    // Whether at() is true with no step for every offset up to bound (forward): a caller with a
    // cheap bound on its offset asks for the offset only when not.
    bool before_step(uint64_t bound) const noexcept { return forward_ && bound < next_; }
    // A second pass from the start (forward): the pages of the first are dropped as it goes.
    void restart() {
        if (forward_ && next_ != UINT64_MAX) next_ = 0, dropped_ = 0;
    }
    const Error& error() const noexcept { return error_; }
    bool failed() const noexcept { return failed_; }

  private:
    bool step(uint64_t offset);
    bool still_whole(uint64_t offset);
    void drop(uint64_t from, uint64_t to);

    const TraceBytes& bytes_;
    const bool forward_;
    uint64_t next_;         // the offset of the next step
    uint64_t dropped_ = 0;  // forward: [0, dropped_) given back; backward: [dropped_, size)
    bool failed_ = false;
    Error error_;
};

}  // namespace ringscope::ipt
