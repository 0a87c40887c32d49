#include "framework/symbols/sdk_symbol_api.hpp"

#include "framework/symbols/guest_symbols.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"
#include "framework/symbols/resolver_registry.hpp"

namespace ringscope {

std::unique_ptr<ResolverService> make_resolver_service() {
    return std::make_unique<symbols::ResolverRegistry>();
}

Expected<std::shared_ptr<const SymbolResolver>> parse_kallsyms(std::string_view text, std::string origin) {
    auto r = symbols::KallsymsResolver::parse(text, std::move(origin));
    if (!r) return std::move(r).error();
    return std::shared_ptr<const SymbolResolver>(std::move(r).value());
}

Expected<std::shared_ptr<const SymbolResolver>> load_symbol_file(const std::string& path) {
    return symbols::load_symbol_file(path);
}

Expected<GuestSymbols> load_guest_symbols(std::string_view arg) {
    auto g = symbols::parse_guest_symbols_arg(arg);
    if (!g) return std::move(g).error();
    auto r = symbols::load_symbol_file(g->path);
    if (!r) return std::move(r).error();
    return GuestSymbols{std::move(g->guest), std::move(r).value()};
}

}  // namespace ringscope
