// A resolver service that knows no symbols: IPs stay unnamed (tests and benchmarks of the decoder).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/resolver.hpp>

namespace ringscope::ipt::testing {

class NoSymbols : public ResolverService {
  public:
    void add(std::string, std::shared_ptr<const SymbolResolver>) override {}
    std::optional<Symbol> lookup(std::string_view, uint64_t) const override { return std::nullopt; }
    bool has(std::string_view) const override { return false; }
    std::vector<std::string> domains() const override { return {}; }
};

}  // namespace ringscope::ipt::testing
