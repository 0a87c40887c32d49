// The framework's ResolverService: resolvers per domain, later registrations asked first.
// add() takes an exclusive lock, reads a shared one, so look-ups from many threads run in parallel.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/resolver.hpp>

namespace ringscope::symbols {

class ResolverRegistry final : public ResolverService {
  public:
    void add(std::string domain, std::shared_ptr<const SymbolResolver> resolver) override;
    std::optional<Symbol> lookup(std::string_view domain, uint64_t addr) const override;
    bool has(std::string_view domain) const override;
    std::vector<std::string> domains() const override;

    // The resolvers of a domain, most recent first (for `ringscope plugins` and messages).
    std::vector<std::shared_ptr<const SymbolResolver>> resolvers(std::string_view domain) const;

  private:
    mutable std::shared_mutex mu_;
    std::map<std::string, std::vector<std::shared_ptr<const SymbolResolver>>, std::less<>> by_domain_;
};

}  // namespace ringscope::symbols
