// The functions an instruction flow is in, innermost last, kept from the runs of instructions it
// takes (`ipt calls`, `ipt profile` and the flow events): the run after a call enters a new frame,
// the run after a return leaves one, and a run in another function than the top's (a jump to it,
// code it runs into) takes the top's place. What a frame is, is the caller's: make(parent, symbol)
// gives its id (a symbol for the flow events, a node of the call tree for `ipt calls`), parent
// being the id of the frame below (-1 at the bottom).
#pragma once

#include <cstddef>
#include <vector>

#include "ipt/insn_class.hpp"

namespace ringscope::ipt {

inline bool is_call(InsnClass c) noexcept {
    return c == InsnClass::call || c == InsnClass::far_call;
}
inline bool is_return(InsnClass c) noexcept {
    return c == InsnClass::ret || c == InsnClass::far_return;
}

class CallStack {
  public:
    struct Frame {
        int id = -1;
        int symbol = -1;
    };
    enum class Edge { none, call, ret };

    // After a sync: nothing is known of the stack.
    void clear() noexcept {
        frames_.clear();
        pending_ = InsnClass::other;
    }

    // A run starts in function symbol: after a call its frame is pushed (Edge::call); after a
    // return (Edge::ret) the caller reports the top and then pop()s it.
    template <class Make>
    Edge start(int symbol, Make&& make) {
        if (is_call(pending_)) {
            frames_.push_back({make(top().id, symbol), symbol});
            return Edge::call;
        }
        return is_return(pending_) ? Edge::ret : Edge::none;
    }
    void pop() noexcept {
        if (!frames_.empty()) frames_.pop_back();
    }
    // The flow is in function symbol: the top's place unless it is there already. The top's id.
    template <class Make>
    int place(int symbol, Make&& make) {
        if (frames_.empty()) {
            frames_.push_back({make(-1, symbol), symbol});
        } else if (frames_.back().symbol != symbol) {
            const int parent = frames_.size() > 1 ? frames_[frames_.size() - 2].id : -1;
            frames_.back() = {make(parent, symbol), symbol};
        }
        return frames_.back().id;
    }
    // The run ended with an instruction of class end: the next run's start() follows it.
    void ended(InsnClass end) noexcept { pending_ = end; }
    InsnClass pending() const noexcept { return pending_; }

    Frame top() const noexcept { return frames_.empty() ? Frame{} : frames_.back(); }
    // As `ipt calls` indents: the frames below the top.
    size_t depth() const noexcept { return frames_.empty() ? 0 : frames_.size() - 1; }

  private:
    std::vector<Frame> frames_;
    InsnClass pending_ = InsnClass::other;
};

}  // namespace ringscope::ipt
