// The framework's ResolverService: resolvers per domain, later registrations asked first.
// Look-ups read an immutable table with no lock (report -j's threads look symbols up for their
// lines: a shared lock is a write to one cache line by all of them); add() publishes a new table
// and keeps the old ones, so a reader never sees one freed. Registrations are few.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
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

    ResolverRegistry();
    ResolverRegistry(const ResolverRegistry&) = delete;
    ResolverRegistry& operator=(const ResolverRegistry&) = delete;

  private:
    using Table = std::map<std::string, std::vector<std::shared_ptr<const SymbolResolver>>, std::less<>>;
    const Table& table() const noexcept { return *current_.load(std::memory_order_acquire); }

    std::mutex add_mu_;                                 // one add() at a time
    std::vector<std::unique_ptr<const Table>> tables_;  // every table published, the current last
    std::atomic<const Table*> current_;
};

}  // namespace ringscope::symbols
