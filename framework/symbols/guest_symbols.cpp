#include "framework/symbols/guest_symbols.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "framework/symbols/elf_symbol_resolver.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"

namespace ringscope::symbols {

std::string vcpu_thread_domain(int host_pid) {
    return std::string(kVcpuThreadDomainPrefix) + std::to_string(host_pid);
}

Expected<GuestSymbolsArg> parse_guest_symbols_arg(std::string_view arg) {
    if (arg.empty()) return Error(Errc::invalid_argument, "--guest-symbols: empty argument");
    size_t eq = arg.find('=');
    size_t slash = arg.find('/');
    // A '=' inside a directory name is part of the path, not a GUEST= prefix.
    if (eq == std::string_view::npos || (slash != std::string_view::npos && slash < eq))
        return GuestSymbolsArg{std::string(kDefaultGuestDomain), std::string(arg)};
    if (eq == 0)
        return Error(Errc::invalid_argument,
                     "--guest-symbols: empty guest name in '" + std::string(arg) + "'");
    if (eq + 1 == arg.size())
        return Error(Errc::invalid_argument, "--guest-symbols: no file after '" + std::string(arg) + "'");
    return GuestSymbolsArg{std::string(arg.substr(0, eq)), std::string(arg.substr(eq + 1))};
}

Expected<std::shared_ptr<const SymbolResolver>> load_symbol_file(const std::string& path) {
    char magic[4] = {};
    {
        std::ifstream in(path, std::ios::binary);
        if (!in) return Error(Errc::io, std::string("cannot open: ") + std::strerror(errno)).in_file(path);
        in.read(magic, sizeof magic);
    }
    if (std::memcmp(magic,
                    "\x7f"
                    "ELF",
                    4) == 0) {
        auto r = ElfSymbolResolver::open(path);
        if (!r) return std::move(r).error();
        return std::shared_ptr<const SymbolResolver>(std::move(r).value());
    }
    auto r = KallsymsResolver::load(path);
    if (!r) return std::move(r).error();
    return std::shared_ptr<const SymbolResolver>(std::move(r).value());
}

void register_guest(ResolverService& service, std::string_view guest_name,
                    std::span<const int> vcpu_host_pids, std::shared_ptr<const SymbolResolver> resolver) {
    if (!resolver) return;
    service.add(std::string(guest_name), resolver);
    for (int pid : vcpu_host_pids) service.add(vcpu_thread_domain(pid), resolver);
}

}  // namespace ringscope::symbols
