#include "guest_functions.hpp"

namespace ringscope::kvm {

const std::string& GuestFunctions::domain_for(const Event& ev) {
    int pid = ev.pid();
    auto it = domain_by_pid_.find(pid);
    if (it != domain_by_pid_.end()) return it->second;
    const ResolverService& rs = ev.context().resolvers();
    std::string domain = std::string(kVcpuThreadDomainPrefix) + std::to_string(pid);
    if (!rs.has(domain)) domain = rs.has(kGuestDomain) ? std::string(kGuestDomain) : std::string();
    return domain_by_pid_.emplace(pid, std::move(domain)).first->second;
}

std::optional<Symbol> GuestFunctions::lookup(const Event& ev, uint64_t addr) {
    const std::string& domain = domain_for(ev);
    if (domain.empty()) return std::nullopt;
    return ev.context().resolvers().lookup(domain, addr);
}

void GuestFunctions::append(const Event& ev, uint64_t addr, TextBuffer& out) {
    auto sym = lookup(ev, addr);
    if (!sym) return;
    out.push_back(' ');
    out.append(sym->name);
    if (addr != sym->start) out.appendf("+0x%llx", static_cast<unsigned long long>(addr - sym->start));
}

}  // namespace ringscope::kvm
