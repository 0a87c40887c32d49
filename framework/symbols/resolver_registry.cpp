#include "framework/symbols/resolver_registry.hpp"

namespace ringscope::symbols {

ResolverRegistry::ResolverRegistry() {
    tables_.push_back(std::make_unique<const Table>());
    current_.store(tables_.back().get(), std::memory_order_release);
}

void ResolverRegistry::add(std::string domain, std::shared_ptr<const SymbolResolver> resolver) {
    if (!resolver) return;
    std::lock_guard lock(add_mu_);
    auto next = std::make_unique<Table>(table());
    (*next)[std::move(domain)].push_back(std::move(resolver));
    tables_.push_back(std::move(next));
    current_.store(tables_.back().get(), std::memory_order_release);
}

std::optional<Symbol> ResolverRegistry::lookup(std::string_view domain, uint64_t addr) const {
    const Table& t = table();
    auto it = t.find(domain);
    if (it == t.end()) return std::nullopt;
    const auto& list = it->second;
    for (auto r = list.rbegin(); r != list.rend(); ++r)
        if (auto s = (*r)->lookup(addr)) return s;
    return std::nullopt;
}

bool ResolverRegistry::has(std::string_view domain) const {
    const Table& t = table();
    return t.find(domain) != t.end();
}

std::vector<std::string> ResolverRegistry::domains() const {
    const Table& t = table();
    std::vector<std::string> out;
    out.reserve(t.size());
    for (const auto& [name, list] : t) out.push_back(name);
    return out;
}

std::vector<std::shared_ptr<const SymbolResolver>> ResolverRegistry::resolvers(
    std::string_view domain) const {
    const Table& t = table();
    auto it = t.find(domain);
    if (it == t.end()) return {};
    return {it->second.rbegin(), it->second.rend()};
}

}  // namespace ringscope::symbols
