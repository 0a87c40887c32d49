#include "ipt/run_symbols.hpp"

#include <algorithm>

namespace ringscope::ipt {

void RunSymbols::fit(const BlockCache& cache, uint32_t index) {
    if (cache.generation() != generation_) {
        table_.clear();
        generation_ = cache.generation();
    }
    // Doubling (the cache adds runs one at a time), up to the most runs the cache holds.
    if (index > table_.size())
        table_.resize(std::max<size_t>(
            index, std::min(std::max<size_t>(table_.size() * 2, 1024), BlockCache::kMaxRuns)));
}

}  // namespace ringscope::ipt
