#include "ipt/psb_parts.hpp"

#include "ipt/ordered_pipeline.hpp"
#include "ipt/psb_search.hpp"

namespace ringscope::ipt {

std::vector<uint64_t> psb_cuts(const Config& config, uint64_t part_bytes) {
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
    }
    cuts.push_back(size);
    return cuts;
}

void run_in_order(size_t n, unsigned threads, size_t window, const std::function<void(size_t)>& work,
                  const std::function<void(size_t)>& take) {
    if (threads <= 1 || n <= 1) {
        for (size_t i = 0; i < n; ++i) {
            work(i);
            take(i);
        }
        return;
    }
    if (window < threads) window = threads;
    OrderedPipeline pipeline(n, threads, window, work);
    for (size_t i = 0; i < n; ++i) {
        pipeline.wait(i);
        take(i);
        pipeline.release(i);
    }
}

}  // namespace ringscope::ipt
