// Address -> symbol for one address space ("domain"): the host kernel ("kernel"), a guest by its
// name, a process. The framework's ResolverService holds resolvers per domain; plugins look up
// through it and may register their own resolvers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/error.hpp>

namespace ringscope {

struct Symbol {
    std::string_view name;  // valid as long as the resolver lives
    uint64_t start = 0;
    uint64_t size = 0;        // 0 when the source does not say (kallsyms): up to the next symbol
    std::string_view module;  // empty for the core image
};

class SymbolResolver {
  public:
    virtual ~SymbolResolver() = default;
    // The symbol that contains addr, or nullopt.
    virtual std::optional<Symbol> lookup(uint64_t addr) const = 0;
    // A short description for `ringscope plugins` and errors, e.g. "kallsyms:/path (96352 symbols)".
    virtual std::string describe() const = 0;
};

inline constexpr std::string_view kKernelDomain = "kernel";

class ResolverService {
  public:
    virtual ~ResolverService() = default;
    // Later registrations for a domain are asked first.
    virtual void add(std::string domain, std::shared_ptr<const SymbolResolver> resolver) = 0;
    virtual std::optional<Symbol> lookup(std::string_view domain, uint64_t addr) const = 0;
    virtual bool has(std::string_view domain) const = 0;
    virtual std::vector<std::string> domains() const = 0;

    // "name+0xoff" ("name" at the start; empty when unresolved).
    static std::string format(const Symbol& s, uint64_t addr) {
        std::string out(s.name);
        if (addr != s.start) {
            char buf[32];
            int n = __builtin_snprintf(buf, sizeof buf, "+0x%llx",
                                       static_cast<unsigned long long>(addr - s.start));
            out.append(buf, static_cast<size_t>(n));
        }
        return out;
    }
};

// A new, empty resolver service (the framework's): thread-safe reads, later registrations asked
// first.
std::unique_ptr<ResolverService> make_resolver_service();

// Kallsyms text (/proc/kallsyms, System.map) as a resolver, with libtraceevent's look-up rules.
// `origin` names the text in errors ("ORIGIN:LINE:COL: ...") and in describe().
Expected<std::shared_ptr<const SymbolResolver>> parse_kallsyms(std::string_view text, std::string origin);

// A symbol file by its content: ELF (vmlinux, .ko: symbol table via libelf) or kallsyms text.
Expected<std::shared_ptr<const SymbolResolver>> load_symbol_file(const std::string& path);

// What a `--guest-symbols [GUEST=]FILE` argument names: the file's resolver and the domain to add
// it under (the guest's name, "guest" without one), read as `ringscope report` reads it.
struct GuestSymbols {
    std::string domain;
    std::shared_ptr<const SymbolResolver> resolver;
};
Expected<GuestSymbols> load_guest_symbols(std::string_view arg);

}  // namespace ringscope
