// A TraceContext for fuzz targets: no task names, an empty resolver service.
#pragma once

#include <ringscope/context.hpp>

#include "framework/format/format_catalog.hpp"
#include "framework/symbols/resolver_registry.hpp"

namespace ringscope::fuzz {

class FuzzContext final : public TraceContext {
public:
    explicit FuzzContext(const format::FormatCatalog& catalog) : catalog_(catalog) {}
    std::string_view comm(int pid) const override { return pid ? "<...>" : "<idle>"; }
    void register_comm(int, std::string_view) override {}
    const EventType* type_by_id(uint32_t id) const override { return catalog_.by_id(id); }
    const EventType* find_type(std::string_view s, std::string_view n) const override { return catalog_.find(s, n); }
    const ResolverService& resolvers() const override { return resolvers_; }
    std::string_view source_name() const override { return "fuzz"; }
    int cpu_count() const override { return 1; }
    int long_size() const override { return catalog_.long_size(); }
    bool big_endian() const override { return catalog_.big_endian(); }

private:
    const format::FormatCatalog& catalog_;
    symbols::ResolverRegistry resolvers_;
};

}  // namespace ringscope::fuzz
