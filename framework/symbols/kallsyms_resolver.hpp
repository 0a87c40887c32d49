// A SymbolResolver over kallsyms text (`ADDR TYPE NAME[\t[MODULE]]`, as /proc/kallsyms and
// System.map). Parsed once into a sorted table; look-ups are a binary search with no allocation, and
// the object is immutable after parse(), so any number of threads may share it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/error.hpp>
#include <ringscope/resolver.hpp>

namespace ringscope::symbols {

class KallsymsResolver final : public SymbolResolver {
  public:
    // Parses the whole text. `origin` names the source in describe() and in errors (a path, or
    // "trace.dat kallsyms"). Malformed lines give Errc::parse with the 1-based line (and column).
    // The table keeps a copy of TEXT (its names are views into it).
    static Expected<std::shared_ptr<const KallsymsResolver>> parse(std::string_view text, std::string origin);
    // The same without the copy: the names are views into TEXT, which OWNER keeps alive.
    static Expected<std::shared_ptr<const KallsymsResolver>> parse(std::string_view text, std::string origin,
                                                                   std::shared_ptr<const void> owner);
    // The most a kallsyms file may hold (/proc/kallsyms is ~10 MB with modules).
    static constexpr size_t kMaxFileSize = size_t(256) << 20;
    // Reads FILE and parses it. Errors name the offset: a NUL byte (not a text), past kMaxFileSize.
    static Expected<std::shared_ptr<const KallsymsResolver>> load(const std::string& path);

    std::optional<Symbol> lookup(uint64_t addr) const override;
    std::string describe() const override;

    // Every name registered at exactly `addr`, in file order (for tools that list aliases).
    std::vector<Symbol> names_at(uint64_t addr) const;
    // The address of the first symbol named NAME in the table, or nullopt (a scan: for a few names,
    // such as _text when a previous boot's addresses are relocated).
    std::optional<uint64_t> address_of(std::string_view name) const;
    size_t size() const noexcept { return entries_.size(); }
    size_t skipped() const noexcept { return skipped_; }  // A/a and '$' symbols left out

    struct Entry {
        uint64_t addr;
        uint32_t name_off;    // into the text; the module name, if any, follows the name's "\t["
        uint16_t name_len;    // the kernel caps names at 512 bytes (KSYM_NAME_LEN)
        uint16_t mod_len;     // 0: core image
        uint32_t file_index;  // position among kept symbols, in file order
    };

  private:
    KallsymsResolver() = default;
    Symbol to_symbol(const Entry& e) const noexcept;
    size_t reference_bsearch(uint64_t addr) const noexcept;
    void sort_entries();
    void build_index();

    std::string origin_;
    std::shared_ptr<const void> owner_;  // keeps text_ alive
    std::string_view text_;              // the kallsyms text the entries point into
    std::vector<Entry> entries_;         // sorted: address, then reverse file order (as libtraceevent)
    // One slot per distinct address, dense for the search; the entry an exact hit and an address
    // inside the symbol get (they differ only where several names share the address).
    std::vector<uint64_t> starts_;
    std::vector<uint32_t> exact_pick_, inside_pick_;
    size_t skipped_ = 0;
};

}  // namespace ringscope::symbols
