// trace-cmd 3.4's LAST_BOOT_INFO section: a boot-mapped (persistent) ring buffer instance's
// last_boot_info file, read while the instance still held the previous boot's events. The kernel
// has printed it in three ways:
//   6.12 - 6.14.4   "text delta:\t%ld\ndata delta:\t%ld\n"  (this boot's _text minus the previous)
//   6.14.5 stable   "%lx\t[kernel]\n"                       (the previous boot's KASLR offset)
//   6.15 and later  "%lx\t[kernel]\n" + "%lx\t%s\n" a module (the previous boot's _text, and where
//                   each module it had loaded lay)
// and "# Current\n" (or a 6.12 file with both deltas 0) once the buffer holds this boot's events.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope::symbols {

struct PreviousModule {
    std::string name;
    std::string label;  // "[NAME]"
    uint64_t address = 0;
};

struct LastBootInfo {
    enum class Form { current, text_delta, kernel_address };
    Form form = Form::current;
    int64_t text_delta = 0;  // Form::text_delta
    int64_t data_delta = 0;
    // Form::kernel_address: the number before "[kernel]" (the previous _text, or on 6.14.5 stable
    // kernels the previous KASLR offset; BootRelocation tells them apart).
    uint64_t kernel = 0;
    std::vector<PreviousModule> modules;  // by address

    // Errc::parse at the 1-based line and column of what does not read as any of the forms.
    static Expected<LastBootInfo> parse(std::string_view text);
    // Whether the addresses recorded need relocating at all.
    bool previous_boot() const noexcept {
        return form == Form::kernel_address || (form == Form::text_delta && text_delta != 0);
    }
};

}  // namespace ringscope::symbols
