// The "kernel" resolver of a trace that carries trace-cmd 3.4's MODULES_FILE and/or LAST_BOOT_INFO
// sections: the trace's kallsyms, asked after the address is relocated from the previous boot (when
// LAST_BOOT_INFO says the buffer holds one), and an address inside a loaded module that the kallsyms
// give no symbol of that module for resolves to the module itself, `[ext4]+0x40`. The symbols it
// returns start in the address space of the address asked for, so `name+0xOFF` is the same offset
// in either boot.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <ringscope/resolver.hpp>

#include "framework/symbols/boot_relocation.hpp"
#include "framework/symbols/module_list.hpp"

namespace ringscope::symbols {

class KernelSectionsResolver final : public SymbolResolver {
  public:
    // KALLSYMS may be null (a trace without them still names modules).
    KernelSectionsResolver(std::shared_ptr<const SymbolResolver> kallsyms, std::optional<ModuleList> modules,
                           std::optional<BootRelocation> relocation)
        : kallsyms_(std::move(kallsyms)), modules_(std::move(modules)), relocation_(std::move(relocation)) {}

    std::optional<Symbol> lookup(uint64_t addr) const override;
    std::string describe() const override;
    const SymbolResolver* kallsyms() const noexcept { return kallsyms_.get(); }

  private:
    std::shared_ptr<const SymbolResolver> kallsyms_;
    std::optional<ModuleList> modules_;
    std::optional<BootRelocation> relocation_;
};

}  // namespace ringscope::symbols
