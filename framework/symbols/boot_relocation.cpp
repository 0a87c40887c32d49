#include "framework/symbols/boot_relocation.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

namespace ringscope::symbols {

namespace {

// Where _text lies without KASLR: x86-64 (__START_KERNEL_map + 16 MiB), arm64 (KIMAGE_VADDR,
// 48-bit VA since 6.x), i386 (PAGE_OFFSET + 16 MiB). The KASLR offset is _text minus it.
constexpr uint64_t kDefaultText[] = {0xffffffff81000000ull, 0xffff800080000000ull, 0xc1000000ull};

int top_nibble(uint64_t v) {
    return v > 0xffffffffull ? static_cast<int>(v >> 60) : static_cast<int>(v >> 28);
}

Expected<int64_t> delta_of(const LastBootInfo& info, std::optional<uint64_t> current_text) {
    if (info.form == LastBootInfo::Form::current) return int64_t{0};
    if (info.form == LastBootInfo::Form::text_delta) return info.text_delta;
    if (!current_text)
        return Error(Errc::not_found,
                     "the trace's kallsyms have no _text to relocate the previous boot's addresses to");
    // 6.15 prints the previous _text: a kernel address like this boot's. 6.14.5 printed the KASLR
    // offset, a small number.
    if (top_nibble(info.kernel) == top_nibble(*current_text) && info.kernel > 0xffffff)
        return static_cast<int64_t>(*current_text - info.kernel);
    for (uint64_t base : kDefaultText) {
        if (*current_text < base || top_nibble(base) != top_nibble(*current_text)) continue;
        const uint64_t current_kaslr = *current_text - base;
        return static_cast<int64_t>(current_kaslr - info.kernel);
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(*current_text));
    return Error(
        Errc::unsupported,
        std::string("a KASLR offset, and this kernel's default _text (_text is ") + buf + ") is not known");
}

}  // namespace

Expected<BootRelocation> BootRelocation::make(const LastBootInfo& info, std::optional<uint64_t> current_text,
                                              const ModuleList* modules) {
    auto delta = delta_of(info, current_text);
    if (!delta) return std::move(delta).error();
    BootRelocation r;
    r.kernel_delta_ = *delta;
    r.modules_ = info.modules;  // sorted by address
    for (size_t i = 0; i < r.modules_.size(); ++i) {
        const PreviousModule& pm = r.modules_[i];
        const uint64_t next =
            i + 1 < r.modules_.size() ? r.modules_[i + 1].address : std::numeric_limits<uint64_t>::max();
        Span s;
        s.prev = pm.address;
        if (const LoadedModule* now = modules ? modules->by_name(pm.name) : nullptr) {
            s.end = std::min(next, pm.address + now->size);
            s.delta = static_cast<int64_t>(now->address - pm.address);
        } else {
            s.end = next;
            s.gone = static_cast<int32_t>(i);
        }
        r.spans_.push_back(s);
    }
    return r;
}

BootRelocation::Place BootRelocation::relocate_in_modules(uint64_t addr) const noexcept {
    auto it = std::upper_bound(spans_.begin(), spans_.end(), addr,
                               [](uint64_t a, const Span& s) { return a < s.prev; });
    const Span& s = *(it - 1);  // addr >= spans_.front().prev
    if (addr >= s.end) return {addr + static_cast<uint64_t>(kernel_delta_), nullptr};
    if (s.gone >= 0) return {addr, &modules_[static_cast<size_t>(s.gone)]};
    return {addr + static_cast<uint64_t>(s.delta), nullptr};
}

}  // namespace ringscope::symbols
