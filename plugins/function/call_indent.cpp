#include "call_indent.hpp"

namespace ringscope::function {

void CallIndent::set(Chain& chain, std::string_view name, size_t pos) {
    if (name.empty()) return;  // an unresolved function leaves the chain as it is
    if (pos < chain.size())
        chain[pos] = name;
    else
        chain.push_back(name);  // pos is at most one past the end
}

int CallIndent::depth(std::string_view parent, std::string_view child, int cpu) {
    if (cpu < 0) return 0;
    // Bounded so that a corrupt CPU number cannot make us allocate without limit.
    constexpr int kMaxCpu = 1 << 16;
    if (cpu >= kMaxCpu) return 0;
    if (static_cast<size_t>(cpu) >= cpus_.size()) cpus_.resize(static_cast<size_t>(cpu) + 1);
    Chain& chain = cpus_[static_cast<size_t>(cpu)];
    for (size_t i = 0; i < chain.size() && !chain[i].empty(); ++i) {
        if (chain[i] == parent) {
            set(chain, child, i + 1);
            return static_cast<int>(i);
        }
    }
    set(chain, parent, 0);
    set(chain, child, 1);
    return 0;
}

}  // namespace ringscope::function
