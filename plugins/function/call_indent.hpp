// The function plugin's call-depth guess: per CPU, the chain of functions seen so far. A function
// whose parent is in the chain is indented by the parent's depth and becomes the entry right after
// it; otherwise the chain restarts as [parent, function]. Deeper entries are not cleared when the
// chain is cut short (later events may still match them), exactly as libtraceevent does.
#pragma once

#include <string_view>
#include <vector>

namespace ringscope::function {

class CallIndent {
  public:
    // Depth (0-based) for a call of `child` (may be empty: unresolved) from `parent` on `cpu`.
    int depth(std::string_view parent, std::string_view child, int cpu);

  private:
    // Names are views into the resolver's symbol table, which outlives the run; empty = none.
    using Chain = std::vector<std::string_view>;
    void set(Chain& chain, std::string_view name, size_t pos);

    std::vector<Chain> cpus_;
};

}  // namespace ringscope::function
