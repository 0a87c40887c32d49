#include "ipt/call_tree.hpp"

namespace ringscope::ipt {

CallTree::CallTree(const Symbols& symbols, Hooks& hooks) : symbols_(symbols), hooks_(hooks) {}

void CallTree::across(uint64_t ip, uint32_t n, const uint8_t* sizes, uint64_t ticks_first,
                      uint64_t ticks_last) {
    for (uint32_t k = 0; k < n; ip += sizes[k++]) {
        Node& node = nodes_[static_cast<size_t>(stack_.place(symbols_.find(ip), Child{this}))];
        node.insn += 1;
        node.ticks += (k == 0 ? ticks_first : 0) + (k + 1 == n ? ticks_last : 0);
    }
}

int CallTree::add(uint64_t key, int parent, int symbol) {
    const int node = static_cast<int>(nodes_.size());
    nodes_.push_back({parent, symbol});
    children_.add(key, static_cast<uint32_t>(node) + 1);
    return node;
}

std::string CallTree::path(int node) const {
    std::string p;
    for (int n = node; n >= 0; n = nodes_[static_cast<size_t>(n)].parent)
        p = symbols_.name(nodes_[static_cast<size_t>(n)].symbol) + (p.empty() ? "" : ";" + p);
    return p;
}

}  // namespace ringscope::ipt
