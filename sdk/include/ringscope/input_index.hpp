// Which input (trace file) of a multi-file run an event comes from, for analyses that follow
// something in flight per recording (a pending wakeup, a vCPU's exit): the pids and CPUs of one
// file say nothing about another's. A handler fed by `ringscope run` sees every input's events
// through on_event(); the event's context tells the inputs apart.
//
//   void on_event(const Event& ev) override { pending_[{inputs_.of(ev), ev.pid()}] = ...; }
//
// Inputs are numbered 0, 1, ... in the order their first event is seen, so an analysis's results
// must not depend on the numbering (they do not when the numbers only key state).
#pragma once

#include <cstddef>
#include <vector>

#include <ringscope/context.hpp>
#include <ringscope/event.hpp>

namespace ringscope {

class InputIndex {
  public:
    size_t of(const Event& ev) {
        const TraceContext* ctx = &ev.context();
        if (ctx == last_) return last_index_;
        size_t i = 0;
        while (i < seen_.size() && seen_[i] != ctx) ++i;
        if (i == seen_.size()) seen_.push_back(ctx);
        last_ = ctx;
        last_index_ = i;
        return i;
    }
    size_t count() const noexcept { return seen_.size(); }

  private:
    std::vector<const TraceContext*> seen_;
    const TraceContext* last_ = nullptr;
    size_t last_index_ = 0;
};

}  // namespace ringscope
