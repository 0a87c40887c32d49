// The instruction flow from every sync point, as `ipt calls`, `ipt profile` and the flow events
// (flow_events.hpp) walk it, a step at a time: a sync, a run of instructions (or a path of them),
// an error (and on from the next PSB), the end. Events are drained and not shown; what the callers
// print of the flow comes from the runs. With PagesBehind it gives back the pages of a mapped
// trace behind it and ends where the file shrank (pages->failed()).
#pragma once

#include <cstdint>

#include "ipt/insn_decoder.hpp"
#include "ipt/pages_behind.hpp"

namespace ringscope::ipt {

class FlowWalk {
  public:
    enum class Step {
        synced,  // the decoder synchronized: nothing before is a guide to what follows
        run,     // path holds the next instructions
        error,   // decoding stopped at status(); the walk goes on from the next PSB
        end,     // the end of the trace (or of what syncs), or the file shrank
    };

    // With time, each step's time_before() and time_after() are taken, and its path is
    // next_path_timed's (RunTimes gives the time each of its runs ends at).
    explicit FlowWalk(InsnDecoder& d, PagesBehind* pages = nullptr, bool time = false)
        : d_(d), pages_(pages), time_(time) {}

    // The next step. one_run: a run a step (next_block, in path.single), else next_path's.
    Step next(InsnPath& path, bool one_run);

    int status() const noexcept { return status_; }
    // Whether an event other than a status update (an interrupt, a disable, an overflow...) came
    // before this step's run: the run is no branch's target.
    bool interrupted() const noexcept { return interrupted_; }
    // The decoder's time (as InsnDecoder::time) after the events, as the run started.
    uint64_t time_before() const noexcept { return time_before_; }
    // The decoder's time after the step's run (or path's last run).
    uint64_t time_after() const noexcept { return time_after_; }

  private:
    Step sync();

    InsnDecoder& d_;
    PagesBehind* pages_;
    const bool time_;
    uint64_t time_before_ = 0, time_after_ = 0;
    bool synced_ = false, done_ = false, interrupted_ = false;
    int status_ = 0;
    uint64_t sync_at_ = 0;  // where the last sync error was
};

// The times the runs of a timed step's path end at, one after the other: at() after the run
// before (the step's time_before() before the first), next() after the next one (the last
// ends at the step's time_after()).
class RunTimes {
  public:
    RunTimes(const InsnPath& path, uint64_t before, uint64_t after) noexcept
        : path_(path), at_(before), after_(after) {}

    uint64_t at() const noexcept { return at_; }
    uint64_t next() noexcept {
        if (++run_ == path_.nruns) return at_ = after_;
        if (mark_ < path_.nmarks && path_.marks[mark_].runs == run_) at_ = path_.marks[mark_++].tsc;
        return at_;
    }

  private:
    const InsnPath& path_;
    uint64_t at_, after_;
    uint32_t run_ = 0, mark_ = 0;
};

}  // namespace ringscope::ipt
