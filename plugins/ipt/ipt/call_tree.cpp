#include "ipt/call_tree.hpp"

namespace ringscope::ipt {

CallTree::CallTree(const Symbols& symbols, Hooks& hooks)
    : symbols_(symbols), hooks_(hooks), slots_(1024), mask_(slots_.size() - 1) {}

void CallTree::across(uint64_t ip, uint32_t n, const uint8_t* sizes, uint64_t ticks_first,
                      uint64_t ticks_last) {
    for (uint32_t k = 0; k < n; ip += sizes[k++]) {
        Node& node = nodes_[static_cast<size_t>(stack_.place(symbols_.find(ip), Child{this}))];
        node.insn += 1;
        node.ticks += (k == 0 ? ticks_first : 0) + (k + 1 == n ? ticks_last : 0);
    }
}

int CallTree::add(size_t i, uint64_t key, int parent, int symbol) {
    const int node = static_cast<int>(nodes_.size());
    nodes_.push_back({parent, symbol});
    slots_[i] = {key, node};
    // At most half full: probes stay short.
    if (nodes_.size() * 2 > slots_.size()) {
        std::vector<Slot> old(slots_.size() * 2);
        old.swap(slots_);
        mask_ = slots_.size() - 1;
        for (const Slot& s : old) {
            if (s.node < 0) continue;
            size_t j = slot_of(s.key);
            while (slots_[j].node >= 0) j = (j + 1) & mask_;
            slots_[j] = s;
        }
    }
    return node;
}

std::string CallTree::path(int node) const {
    std::string p;
    for (int n = node; n >= 0; n = nodes_[static_cast<size_t>(n)].parent)
        p = symbols_.name(nodes_[static_cast<size_t>(n)].symbol) + (p.empty() ? "" : ";" + p);
    return p;
}

}  // namespace ringscope::ipt
