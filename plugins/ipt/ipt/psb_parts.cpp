#include "ipt/psb_parts.hpp"

#include "ipt/ordered_pipeline.hpp"
#include "ipt/psb_search.hpp"

namespace ringscope::ipt {

std::vector<uint64_t> psb_cuts(const Config& config, uint64_t part_bytes, PagesBehind* pages) {
    std::vector<uint64_t> cuts;
    const auto size = static_cast<uint64_t>(config.end - config.begin);
    PacketDecoder first(config);
    uint64_t at = 0;
    if (first.sync_forward() < 0 || first.get_sync_offset(at) < 0) return cuts;
    cuts.push_back(at);
    if (part_bytes == 0) part_bytes = 1;
    while (size - at > part_bytes) {
        const uint8_t* sync = nullptr;
        if (sync_forward(&sync, config.begin + at + part_bytes, config, true) < 0) break;
        at = static_cast<uint64_t>(sync - config.begin);
        cuts.push_back(at);
        if (pages && !pages->at(at)) return cuts;
    }
    cuts.push_back(size);
    if (pages) pages->restart();
    return cuts;
}

void run_in_order(size_t n, unsigned threads, size_t window, const std::function<void(size_t)>& work,
                  const std::function<void(size_t)>& take, const std::function<bool()>& stop) {
    if (threads <= 1 || n <= 1) {
        for (size_t i = 0; i < n; ++i) {
            work(i);
            take(i);
            if (stop && stop()) return;
        }
        return;
    }
    if (window < threads) window = threads;
    OrderedPipeline pipeline(n, threads, window, work);
    for (size_t i = 0; i < n; ++i) {
        pipeline.wait(i);
        take(i);
        // The pipeline's destructor starts no more work and waits for the workers' parts.
        if (stop && stop()) return;
        pipeline.release(i);
    }
}

}  // namespace ringscope::ipt
