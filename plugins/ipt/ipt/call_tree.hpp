// The call tree `ipt calls` and `ipt profile` build from the runs of instructions the flow takes:
// the stack of functions the flow is in (CallStack) as nodes of a tree (a node: a function called
// from its parent's), with the instructions and TSC ticks each node ran itself. Hooks see each
// call and return as the stack takes them (`ipt calls` prints them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ipt/call_stack.hpp"
#include "ipt/flat_index.hpp"
#include "ipt/insn_class.hpp"
#include "ipt/run_symbols.hpp"
#include "ipt/symbols.hpp"

namespace ringscope::ipt {

class CallTree {
  public:
    struct Node {
        int parent;
        int symbol;
        uint64_t insn = 0;
        uint64_t ticks = 0;  // TSC ticks (profile --time)
    };
    struct Hooks {
        virtual ~Hooks() = default;
        virtual void call(const CallTree&) {}
        virtual void ret(const CallTree&, int symbol) { (void)symbol; }
    };

    CallTree(const Symbols& symbols, Hooks& hooks);

    // After a sync: nothing is known of the stack.
    void restart() { stack_.clear(); }

    // The instructions from ip on, n of them with their lengths, the last of class end, the first
    // and the last in functions at (their symbols); the time that passed before the first
    // (events) and with the last (its query) in ticks.
    void run(uint64_t ip, uint32_t n, const uint8_t* sizes, InsnClass end, RunSymbol at,
             uint64_t ticks_first = 0, uint64_t ticks_last = 0) {
        const CallStack::Edge edge = stack_.start(at.first, Child{this});
        if (edge == CallStack::Edge::call) {
            hooks_.call(*this);
        } else if (edge == CallStack::Edge::ret) {
            hooks_.ret(*this, stack_.top().symbol);
            stack_.pop();
        }
        stack_.ended(end);
        if (at.last == at.first) [[likely]] {
            Node& node = nodes_[static_cast<size_t>(stack_.place(at.first, Child{this}))];
            node.insn += n;
            node.ticks += ticks_first + ticks_last;
            return;
        }
        across(ip, n, sizes, ticks_first, ticks_last);
    }

    size_t depth() const noexcept { return stack_.depth(); }
    int top_symbol() const noexcept { return stack_.top().symbol; }
    const std::vector<Node>& nodes() const noexcept { return nodes_; }
    const Symbols& symbols() const noexcept { return symbols_; }

    // "a;b;c" for a node.
    std::string path(int node) const;

  private:
    // A run across functions: each instruction where it is.
    void across(uint64_t ip, uint32_t n, const uint8_t* sizes, uint64_t ticks_first, uint64_t ticks_last);

    // The stack's frames: the node of a function called from the node parent's.
    int child(int parent, int symbol) {
        const uint64_t key =
            (static_cast<uint64_t>(static_cast<uint32_t>(parent)) << 32) | static_cast<uint32_t>(symbol);
        if (const uint32_t found = children_.find(key)) return static_cast<int>(found - 1);
        return add(key, parent, symbol);
    }
    // A new node, child of parent's.
    int add(uint64_t key, int parent, int symbol);
    struct Child {
        CallTree* tree;
        int operator()(int parent, int symbol) const { return tree->child(parent, symbol); }
    };

    const Symbols& symbols_;
    Hooks& hooks_;
    std::vector<Node> nodes_;
    FlatIndex children_{1024};  // node + 1 by (parent, symbol)
    CallStack stack_;
};

}  // namespace ringscope::ipt
