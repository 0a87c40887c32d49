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
    // next_path_timed's: every run of it but the last ends at time_before().
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

}  // namespace ringscope::ipt
