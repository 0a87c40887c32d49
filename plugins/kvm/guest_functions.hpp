// Names guest addresses of kvm events through the resolver service, as trace-cmd's
// tep_plugin_kvm_get_func does: the event's pid is a host vCPU thread; the domain
// "kvm-vcpu-thread:PID" (registered by the engine from a host file's GUEST option) names its guest.
// Events of other threads fall back to the domain "guest" (`--guest-symbols FILE`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <ringscope/event.hpp>
#include <ringscope/resolver.hpp>
#include <ringscope/text_buffer.hpp>

namespace ringscope::kvm {

inline constexpr std::string_view kVcpuThreadDomainPrefix = "kvm-vcpu-thread:";
inline constexpr std::string_view kGuestDomain = "guest";

class GuestFunctions {
  public:
    // Forgets the pid -> domain decisions (the service may have changed between runs).
    void reset() { domain_by_pid_.clear(); }

    std::optional<Symbol> lookup(const Event& ev, uint64_t addr);

    // The reference's add_rip_function(): " FUNC" and "+0xOFF" unless addr is the symbol's start.
    void append(const Event& ev, uint64_t addr, TextBuffer& out);

  private:
    // "" when no domain applies to the pid. Looked up once per pid, so the hot path neither
    // formats nor allocates.
    const std::string& domain_for(const Event& ev);

    std::unordered_map<int, std::string> domain_by_pid_;
};

}  // namespace ringscope::kvm
