// A kallsyms table parsed on its first look-up rather than when the trace opens: a trace.dat
// carries ~5 MB of kallsyms, and iterating or counting events never needs a symbol. Thread-safe
// (the parse runs once); the text must stay valid as long as `owner` does.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include <ringscope/error.hpp>
#include <ringscope/resolver.hpp>

#include "framework/symbols/kallsyms_resolver.hpp"

namespace ringscope::symbols {

class LazyKallsymsResolver final : public SymbolResolver {
  public:
    LazyKallsymsResolver(std::string_view text, std::string origin, std::shared_ptr<const void> owner);
    ~LazyKallsymsResolver() override;

    // Starts the parse on a thread of its own (look-ups wait for it; the destructor joins it).
    // Without a thread to start, the parse stays for the first look-up.
    void prefetch();

    // No symbol at all when the text does not parse (status() says why).
    std::optional<Symbol> lookup(uint64_t addr) const override;
    std::string describe() const override;

    // Parses now if that has not happened yet: ok, or the parse error (line and column).
    Status status() const;
    // The parsed table, or nullptr when the text does not parse.
    std::shared_ptr<const KallsymsResolver> table() const;

  private:
    void parse_once() const;

    std::string_view text_;
    std::string origin_;
    std::shared_ptr<const void> owner_;
    mutable std::once_flag once_;
    mutable std::shared_ptr<const KallsymsResolver> table_;
    mutable std::optional<Error> error_;
    std::thread prefetch_;
};

}  // namespace ringscope::symbols
