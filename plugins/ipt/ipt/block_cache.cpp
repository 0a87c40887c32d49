#include "ipt/block_cache.hpp"

#include "ipt/image.hpp"

namespace ringscope::ipt {
namespace {

// The address and the mode in one key (addresses use at most 57 bits).
uint64_t key_of(uint64_t ip, uint8_t mode) noexcept {
    return ip ^ (uint64_t{mode} << 60);
}

size_t hash_of(uint64_t key) noexcept {
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> 32);
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
    slots_.assign(slots_.size(), Slot{});
    runs_.clear();
    hot_.clear();
    sizes_.clear();
    ++generation_;
}

void BlockCache::grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 4096 : old.size() * 2, Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
        if (!s.index) continue;
        size_t i = hash_of(s.key) & mask;
        while (slots_[i].index) i = (i + 1) & mask;
        slots_[i] = s;
    }
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
    if (slots_.empty()) grow();
    const uint64_t key = key_of(ip, mode);
    size_t mask = slots_.size() - 1;
    size_t i = hash_of(key) & mask;
    for (; slots_[i].index; i = (i + 1) & mask) {
        if (slots_[i].key == key) {
            if (index) *index = slots_[i].index;
            return &runs_[slots_[i].index - 1];
        }
    }
    if (runs_.size() >= kMaxRuns) {
        clear();
        i = hash_of(key) & mask;
    }
    const uint32_t built = build(image, ip, mode);
    if (!built) return nullptr;
    if (runs_.size() * 2 > slots_.size()) {
        grow();
        mask = slots_.size() - 1;
        i = hash_of(key) & mask;
        while (slots_[i].index) i = (i + 1) & mask;
    }
    slots_[i] = Slot{key, built};
    if (index) *index = built;
    return &runs_[built - 1];
}

}  // namespace ringscope::ipt
