// The TraceContext of an Intel PT stream's events (system "ipt": one CPU, no tasks) and the
// field layout helpers its event types are made with: the packet events (event_stream.cpp) and
// the instruction flow's events (flow_events.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <ringscope/context.hpp>
#include <ringscope/event_type.hpp>
#include <ringscope/resolver.hpp>

namespace ringscope::ipt {

struct FieldSpec {
    const char* name;
    const char* type;
    uint32_t offset, size, flags;
};

FieldInfo make_field(const FieldSpec& s);

// Event types of system "ipt", ids from 1 in the order given.
struct EventDef {
    const char* name;
    std::vector<FieldSpec> fields;
    const char* fmt;
};
std::vector<std::unique_ptr<EventType>> make_event_types(const std::vector<EventDef>& defs);

class IptContext : public TraceContext {
  public:
    IptContext(std::string source, const ResolverService& resolvers,
               std::vector<std::unique_ptr<EventType>> types)
        : source_(std::move(source)), resolvers_(resolvers), types_(std::move(types)) {}

    std::string_view comm(int) const override { return "<...>"; }
    void register_comm(int, std::string_view) override {}
    const EventType* type_by_id(uint32_t id) const override {
        return id >= 1 && id <= types_.size() ? types_[id - 1].get() : nullptr;
    }
    const EventType* find_type(std::string_view system, std::string_view name) const override {
        if (system != "ipt") return nullptr;
        for (const auto& t : types_)
            if (t->name == name) return t.get();
        return nullptr;
    }
    const ResolverService& resolvers() const override { return resolvers_; }
    std::string_view source_name() const override { return source_; }
    int cpu_count() const override { return 1; }
    int long_size() const override { return 8; }
    bool big_endian() const override { return false; }

    const EventType* type(uint32_t index) const { return types_[index].get(); }
    std::vector<const EventType*> all() const {
        std::vector<const EventType*> out;
        for (const auto& t : types_) out.push_back(t.get());
        return out;
    }

  private:
    std::string source_;
    const ResolverService& resolvers_;
    std::vector<std::unique_ptr<EventType>> types_;
};

}  // namespace ringscope::ipt
