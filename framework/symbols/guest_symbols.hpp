// Where guest symbols come from and under which domain they are registered:
//  - `--guest-symbols [GUEST=]FILE` (and YAML `symbols:`): FILE under domain GUEST, default "guest";
//  - host + guest agent recordings: the guest file's kallsyms under the GUEST option's name, and under
//    "kvm-vcpu-thread:PID" for each host vCPU thread PID of that guest (what the kvm plugin asks).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <ringscope/error.hpp>
#include <ringscope/resolver.hpp>

namespace ringscope::symbols {

inline constexpr std::string_view kDefaultGuestDomain = "guest";
inline constexpr std::string_view kVcpuThreadDomainPrefix = "kvm-vcpu-thread:";

// "kvm-vcpu-thread:159".
std::string vcpu_thread_domain(int host_pid);

struct GuestSymbolsArg {
    std::string guest;  // the domain
    std::string path;
};

// "FILE" -> {"guest", FILE}; "NAME=FILE" -> {NAME, FILE}. A '=' after a '/' belongs to the path
// ("/tmp/a=b/kallsyms" is a path). Errc::invalid_argument for "", "=FILE", "NAME=".
Expected<GuestSymbolsArg> parse_guest_symbols_arg(std::string_view arg);

// Opens a symbol file by its content: ELF (vmlinux, .ko) or kallsyms text.
Expected<std::shared_ptr<const SymbolResolver>> load_symbol_file(const std::string& path);

// Registers `resolver` under the guest's name and under the vCPU-thread domain of each host PID.
void register_guest(ResolverService& service, std::string_view guest_name,
                    std::span<const int> vcpu_host_pids, std::shared_ptr<const SymbolResolver> resolver);

}  // namespace ringscope::symbols
