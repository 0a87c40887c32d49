#include "framework/view/process_summary.hpp"

#include <algorithm>
#include <utility>

namespace ringscope::view {

std::vector<Span> running_union(const std::vector<const std::vector<Span>*>& threads) {
    // (time, +1 a running span starts / -1 one ends); at one time the ends go first.
    std::vector<std::pair<uint64_t, int>> edges;
    for (const auto* spans : threads)
        for (const Span& s : *spans)
            if (s.value == static_cast<int32_t>(TaskState::running) && s.end > s.start) {
                edges.emplace_back(s.start, 1);
                edges.emplace_back(s.end, -1);
            }
    std::sort(edges.begin(), edges.end());
    std::vector<Span> out;
    int32_t running = 0;
    for (const auto& [ts, step] : edges) {
        if (step > 0) {
            if (running == 0) {
                if (!out.empty() && out.back().end >= ts)
                    ++out.back().n;  // touches the one before: the same stretch
                else
                    out.push_back({ts, ts, 0, 1});
            } else {
                ++out.back().n;
            }
            running += step;
            out.back().value = std::max(out.back().value, running);
        } else {
            running += step;
            if (running == 0) out.back().end = ts;
        }
    }
    return out;
}

}  // namespace ringscope::view
