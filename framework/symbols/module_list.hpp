// trace-cmd 3.4's MODULES_FILE section: /proc/modules as it read when the trace was recorded, one
// loaded module a line: `NAME SIZE REFCOUNT DEPS STATE ADDRESS [TAINTS]`
// (`ext4 1064960 1 - Live 0xffffffffc0a00000 (E)`). It says where each module's memory lies in the
// boot that recorded the trace, so that an address inside a module whose symbols the kallsyms do not
// carry still names the module (`[ext4]+0x40`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope::symbols {

struct LoadedModule {
    std::string name;
    std::string label;  // "[NAME]": what an address in it resolves to without a symbol
    uint64_t address = 0;
    uint64_t size = 0;
};

class ModuleList {
  public:
    // Errc::parse at the 1-based line and column of the first line that is not a module line. A
    // module whose address reads 0 (kptr_restrict hid it) is left out.
    static Expected<ModuleList> parse(std::string_view text);

    // The module whose [address, address + size) holds ADDR, or nullptr.
    const LoadedModule* find(uint64_t addr) const noexcept;
    const LoadedModule* by_name(std::string_view name) const noexcept;
    const std::vector<LoadedModule>& modules() const noexcept { return modules_; }  // by address
    bool empty() const noexcept { return modules_.empty(); }

  private:
    std::vector<LoadedModule> modules_;
};

}  // namespace ringscope::symbols
