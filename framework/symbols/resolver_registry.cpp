#include "framework/symbols/resolver_registry.hpp"

#include <mutex>

namespace ringscope::symbols {

void ResolverRegistry::add(std::string domain, std::shared_ptr<const SymbolResolver> resolver) {
    if (!resolver) return;
    std::unique_lock lock(mu_);
    by_domain_[std::move(domain)].push_back(std::move(resolver));
}

std::optional<Symbol> ResolverRegistry::lookup(std::string_view domain, uint64_t addr) const {
    std::shared_lock lock(mu_);
    auto it = by_domain_.find(domain);
    if (it == by_domain_.end()) return std::nullopt;
    const auto& list = it->second;
    for (auto r = list.rbegin(); r != list.rend(); ++r)
        if (auto s = (*r)->lookup(addr)) return s;
    return std::nullopt;
}

bool ResolverRegistry::has(std::string_view domain) const {
    std::shared_lock lock(mu_);
    return by_domain_.find(domain) != by_domain_.end();
}

std::vector<std::string> ResolverRegistry::domains() const {
    std::shared_lock lock(mu_);
    std::vector<std::string> out;
    out.reserve(by_domain_.size());
    for (const auto& [name, list] : by_domain_) out.push_back(name);
    return out;
}

std::vector<std::shared_ptr<const SymbolResolver>> ResolverRegistry::resolvers(
    std::string_view domain) const {
    std::shared_lock lock(mu_);
    auto it = by_domain_.find(domain);
    if (it == by_domain_.end()) return {};
    return {it->second.rbegin(), it->second.rend()};
}

}  // namespace ringscope::symbols
