// The summaries' storage, shared by view_index.cpp (building) and view_query.cpp (answering).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "framework/tasks/tgid_tracker.hpp"
#include "framework/view/sched_tracker.hpp"
#include "framework/view/view_index.hpp"

namespace ringscope::view {

// One lane's bucket being filled: who ran how long in it (slices come in time order per lane).
struct OpenBucket {
    uint32_t index = UINT32_MAX;
    std::vector<std::pair<int32_t, uint64_t>> ran;

    void add(int32_t pid, uint64_t ns) {
        for (auto& [p, t] : ran)
            if (p == pid) {
                t += ns;
                return;
            }
        ran.emplace_back(pid, ns);
    }
    int32_t dominant() const {
        int32_t best = 0;
        uint64_t most = 0;
        for (const auto& [p, t] : ran)
            if (t > most) most = t, best = p;
        return best;
    }
};

struct ViewIndex::Impl {
    uint32_t cpu_buckets = 0, task_buckets = 0, ratio = 1;  // ratio: CPU buckets per task bucket
    uint64_t cpu_ns = 1, task_ns = 1;                       // bucket widths
    std::vector<std::vector<CpuBucket>> cpu;                // per lane
    std::vector<OpenBucket> open;                           // per lane, while summarising
    std::vector<SchedTypes> sched;                          // per file
    std::vector<uint64_t> last_ts;                          // per lane, while summarising
    std::vector<char> goes_back;                            // per lane: a record earlier than one before
    std::vector<tasks::TgidTracker> tgids;                  // per file: its tasks' processes

    uint32_t cpu_bucket(uint64_t start, uint64_t ts) const {
        const uint64_t b = ts <= start ? 0 : (ts - start) / cpu_ns;
        return static_cast<uint32_t>(std::min<uint64_t>(b, cpu_buckets - 1));
    }
    uint32_t task_bucket(uint64_t start, uint64_t ts) const { return cpu_bucket(start, ts) / ratio; }
};

// The buffers the view summarises, in `report`'s order: every file's top buffer, then the
// instances; the merge sources of these, in order, are the CPU lanes.
inline std::vector<engine::BufferRef> view_buffers(const engine::TraceSet& set) {
    return set.buffer_order();
}

}  // namespace ringscope::view
