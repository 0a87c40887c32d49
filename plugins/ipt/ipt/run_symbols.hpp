// The functions a run of instructions starts and ends in, remembered per run of the block cache:
// `ipt calls`, `ipt profile` and the flow events ask it of every run they take, and a run is taken
// again and again (a loop's body, a function called often), so most runs cost an array read
// instead of two searches of the symbols. The table follows the cache's runs and starts again
// with it (BlockCache::generation()); it holds at most one entry per run the cache holds.
#pragma once

#include <cstdint>
#include <vector>

#include "ipt/block_cache.hpp"
#include "ipt/insn_decoder.hpp"
#include "ipt/symbols.hpp"

namespace ringscope::ipt {

// The symbols (Symbols::find) of a run's first instruction and of its last one.
struct RunSymbol {
    int first = 0, last = 0;
};

class RunSymbols {
  public:
    explicit RunSymbols(const Symbols& symbols) : symbols_(symbols) {}

    // Of run index (index + 1, as BlockCache::at takes it) of cache.
    RunSymbol of(const BlockCache& cache, uint32_t index) {
        if (cache.generation() != generation_ || index > table_.size()) [[unlikely]]
            fit(cache, index);
        Entry& e = table_[index - 1];
        if (!e.known) [[unlikely]] {
            const CachedRun& run = cache.at(index);
            e = {{symbols_.find(run.ip), symbols_.find(run.end_ip)}, true};
        }
        return e.symbol;
    }
    // Of a run next_block gave (its last instruction at run.end_ip).
    RunSymbol of(const BlockCache& cache, const InsnRun& run) {
        if (run.cached) return of(cache, run.cached);
        return {symbols_.find(run.ip), symbols_.find(run.end_ip)};
    }

  private:
    struct Entry {
        RunSymbol symbol;
        bool known = false;
    };
    // Room for index, the table emptied when the cache started again.
    void fit(const BlockCache& cache, uint32_t index);

    const Symbols& symbols_;
    std::vector<Entry> table_;
    uint32_t generation_ = 0;
};

}  // namespace ringscope::ipt
