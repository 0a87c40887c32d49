// A SymbolResolver over an ELF symbol table (vmlinux, a kernel module .ko, any ELF), read with
// libelf. Sizes come from st_size; the module name from the .ko's .modinfo "name=" (else the file
// name). Immutable after open(): shared read-only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/resolver.hpp>

namespace ringscope::symbols {

struct ElfLoadOptions {
    // Added to every symbol of an executable or shared object (ET_EXEC/ET_DYN): KASLR slide, PIE base.
    uint64_t bias = 0;
    // Relocatable objects (ET_REL, a .ko): where each section was loaded, by section name, as
    // /sys/module/NAME/sections/ shows it. Symbols of sections not listed are left out; with an
    // empty map every section counts as loaded at 0 (offsets within the object).
    std::map<std::string, uint64_t> section_addrs;
    // Overrides the module name (empty: .modinfo name= for ET_REL, none for vmlinux/executables).
    std::string module;
};

class ElfSymbolResolver final : public SymbolResolver {
  public:
    // Errors: Errc::io (open), Errc::bad_magic (not ELF), Errc::not_found (no symbol table).
    static Expected<std::shared_ptr<const ElfSymbolResolver>> open(const std::string& path,
                                                                   const ElfLoadOptions& opts = {});

    // The symbol whose [start, start+size) holds addr; a size-0 symbol extends to the next start.
    // Among symbols at one address: a sized one before a size-0 one, then a global before a weak
    // before a local, then the first in the table.
    std::optional<Symbol> lookup(uint64_t addr) const override;
    std::string describe() const override;

    size_t size() const noexcept { return entries_.size(); }
    std::string_view module() const noexcept { return module_; }

    struct Entry {
        uint64_t start, size;
        uint32_t name_off, name_len;
        uint32_t rank;  // tie order among one address (lower wins)
    };

  private:
    ElfSymbolResolver() = default;

    std::string path_;
    std::string module_;
    std::string names_;
    std::vector<Entry> entries_;  // by start, then rank; one entry per start address
};

}  // namespace ringscope::symbols
