// Runs of instructions decoded once and kept by address (as libipt's block cache and libxdc's
// cache do): from an address, the instructions in sequence up to and including the first one that
// changes the flow of control, with each one's length and what the last one does. The flow
// decoder takes a run whole while no event is pending, so most instructions are never decoded
// twice; each run remembers the run that followed it when its branch was not taken and when it
// was, so that a walk from run to run (with the TNT bits at hand, libxdc's way) mostly costs no
// lookup.
#pragma once

#include <cstdint>
#include <vector>

#include "ipt/flat_index.hpp"
#include "ipt/insn_class.hpp"

namespace ringscope::ipt {

class Image;

struct CachedRun {
    uint64_t ip = 0;      // the first instruction
    uint64_t end_ip = 0;  // the last one
    uint32_t ninsn = 0;
    uint32_t sizes = 0;  // where the lengths start in BlockCache::sizes()
    uint8_t mode = 0;
    bool ends_in_branch = false;  // else it stopped before an undecodable instruction or at the limit
    DecodedInsn last;             // the last instruction
    // The runs after this one when its branch falls through [0] or is taken [1] (run index + 1;
    // 0 when not known yet).
    uint32_t next[2] = {0, 0};
};

// What a walk from run to run reads of a run whose branch the trace decides with one bit or not
// at all (conditional, direct jump or call, compressed return), apart from CachedRun so that it
// stays in the first-level cache: 16 bytes a run. The successors of a conditional, jump or call
// are those of the branch, so they need no check (CachedRun::next may hold where an event led);
// a return's is where it went last, checked.
struct HotRun {
    enum Kind : uint8_t { cold, cond, jump, call, ret };  // call: one that returns (pushes)
    // cond: not taken [0], taken [1]; jump, call: [0]; ret: [1] (index + 1)
    uint32_t next[2] = {0, 0};
    uint32_t ninsn = 0;
    Kind kind = cold;
};

class BlockCache {
  public:
    // The most instructions in one run; a run ends earlier at a branch.
    static constexpr uint32_t kMaxRun = 256;
    // Past this many runs the cache starts again (memory stays bounded on any image).
    static constexpr size_t kMaxRuns = 1u << 20;

    // The run at ip in mode, decoded now if new; nullptr when not even its first instruction
    // decodes. index (if given) gets the run's index + 1, for CachedRun::next.
    const CachedRun* find(const Image& image, uint64_t ip, uint8_t mode, uint32_t* index = nullptr);
    CachedRun& at(uint32_t index) noexcept { return runs_[index - 1]; }
    const CachedRun& at(uint32_t index) const noexcept { return runs_[index - 1]; }
    HotRun& hot(uint32_t index) noexcept { return hot_[index - 1]; }
    const HotRun& hot(uint32_t index) const noexcept { return hot_[index - 1]; }
    // Changes when the cache starts again: run indexes from before are no longer valid.
    uint32_t generation() const noexcept { return generation_; }
    const uint8_t* sizes(const CachedRun& run) const noexcept { return sizes_.data() + run.sizes; }
    // Whether the next run decoded may start the cache again (then indexes held are invalid).
    bool full() const noexcept { return runs_.size() + 1 >= kMaxRuns; }
    // How many runs were decoded so far (tests and statistics).
    size_t decoded() const noexcept { return decoded_; }

  private:
    uint32_t build(const Image& image, uint64_t ip, uint8_t mode);
    void clear();

    FlatIndex index_{4096};  // run index + 1 by key_of(ip, mode)
    std::vector<CachedRun> runs_;
    std::vector<HotRun> hot_;
    std::vector<uint8_t> sizes_;
    size_t decoded_ = 0;
    uint32_t generation_ = 0;
};

}  // namespace ringscope::ipt
