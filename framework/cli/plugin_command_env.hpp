// The CommandEnv a plugin's subcommand runs with: stdout/stderr and a resolver service seeded
// with what plugins registered.
#pragma once

#include <ringscope/plugin.hpp>

#include "framework/plugin/plugin_host.hpp"
#include "framework/symbols/resolver_registry.hpp"

namespace ringscope::cli {

class PluginCommandEnv final : public CommandEnv {
public:
    explicit PluginCommandEnv(const plugin::PluginHost& host) {
        for (const auto& r : host.resolvers()) resolvers_.add(r.domain, r.resolver);
    }
    ResolverService& resolvers() override { return resolvers_; }
    std::FILE* out() override { return stdout; }
    std::FILE* err() override { return stderr; }

private:
    symbols::ResolverRegistry resolvers_;
};

}  // namespace ringscope::cli
