// Addresses a boot-mapped ring buffer recorded in the previous boot, moved to where the same code
// lies in the boot whose kallsyms and /proc/modules the trace carries: core kernel addresses by the
// difference of the two boots' _text, a module's by the difference of its two load addresses
// (LAST_BOOT_INFO gives the previous one, MODULES_FILE this one). An address in a module the
// previous boot had but this one has not loaded is left as it is and named by its module.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/symbols/last_boot_info.hpp"
#include "framework/symbols/module_list.hpp"

namespace ringscope::symbols {

class BootRelocation {
  public:
    // CURRENT_TEXT: this boot's _text (from the trace's kallsyms), which the 6.14.5 and 6.15 forms
    // need; MODULES: this boot's modules, or null. Errc::not_found when the form needs _text and
    // there is none; Errc::unsupported for a KASLR offset on a kernel whose default _text is not
    // known (x86-64, arm64 and i386 are).
    static Expected<BootRelocation> make(const LastBootInfo& info, std::optional<uint64_t> current_text,
                                         const ModuleList* modules);

    struct Place {
        uint64_t addr = 0;                     // in this boot
        const PreviousModule* gone = nullptr;  // in a module this boot has not loaded (addr as recorded)
    };
    Place relocate(uint64_t addr) const noexcept {
        if (!spans_.empty() && addr >= spans_.front().prev) return relocate_in_modules(addr);
        return {addr + static_cast<uint64_t>(kernel_delta_), nullptr};
    }
    int64_t kernel_delta() const noexcept { return kernel_delta_; }

  private:
    struct Span {
        uint64_t prev = 0;  // the module's previous load address
        uint64_t end = 0;   // and the end of its memory there
        int64_t delta = 0;
        int32_t gone = -1;  // index in modules_ of a module this boot has not loaded
    };
    Place relocate_in_modules(uint64_t addr) const noexcept;

    int64_t kernel_delta_ = 0;
    std::vector<Span> spans_;  // by prev; empty when the previous boot listed no module
    std::vector<PreviousModule> modules_;
};

}  // namespace ringscope::symbols
