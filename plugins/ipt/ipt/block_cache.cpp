#include "ipt/block_cache.hpp"

#include "ipt/image.hpp"

namespace ringscope::ipt {
namespace {

// The address and the mode in one key (addresses use at most 57 bits).
uint64_t key_of(uint64_t ip, uint8_t mode) noexcept {
    return ip ^ (uint64_t{mode} << 60);
}

HotRun hot_of(const CachedRun& run) noexcept {
    HotRun h;
    h.ninsn = run.ninsn;
    if (!run.ends_in_branch) return h;
    const DecodedInsn& last = run.last;
    if (last.iclass == InsnClass::cond_jump)
        h.kind = HotRun::cond;
    else if ((last.iclass == InsnClass::jump || last.iclass == InsnClass::call) && last.is_direct)
        // A call to the next instruction (position-independent code) does not return.
        h.kind = last.iclass == InsnClass::call && last.displacement ? HotRun::call : HotRun::jump;
    else if (last.iclass == InsnClass::ret)
        h.kind = HotRun::ret;
    return h;
}

}  // namespace

void BlockCache::clear() {
    index_.clear();
    runs_.clear();
    hot_.clear();
    sizes_.clear();
    ++generation_;
}

uint32_t BlockCache::build(const Image& image, uint64_t ip, uint8_t mode) {
    CachedRun run;
    run.ip = ip;
    run.mode = mode;
    run.sizes = static_cast<uint32_t>(sizes_.size());
    uint64_t at = ip;
    uint8_t raw[15];
    while (run.ninsn < kMaxRun) {
        DecodedInsn insn;
        const int n = image.read(at, raw, sizeof raw);
        if (n < 0 || decode_insn(insn, raw, static_cast<size_t>(n), static_cast<ExecMode>(mode)) < 0) break;
        sizes_.push_back(insn.size);
        run.end_ip = at;
        run.last = insn;
        ++run.ninsn;
        if (insn.iclass != InsnClass::other && insn.iclass != InsnClass::ptwrite) {
            run.ends_in_branch = true;
            break;
        }
        at += insn.size;
    }
    if (!run.ninsn) return 0;
    ++decoded_;
    runs_.push_back(run);
    hot_.push_back(hot_of(run));
    return static_cast<uint32_t>(runs_.size());
}

const CachedRun* BlockCache::find(const Image& image, uint64_t ip, uint8_t mode, uint32_t* index) {
    const uint64_t key = key_of(ip, mode);
    uint32_t at = index_.find(key);
    if (!at) {
        if (runs_.size() >= kMaxRuns) clear();
        if (!(at = build(image, ip, mode))) return nullptr;
        index_.add(key, at);
    }
    if (index) *index = at;
    return &runs_[at - 1];
}

}  // namespace ringscope::ipt
