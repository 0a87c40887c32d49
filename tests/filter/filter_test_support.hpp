// Hand-built event types, payloads and a trace context for the filter tests.
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ringscope/context.hpp>
#include <ringscope/event.hpp>
#include <ringscope/event_type.hpp>
#include <ringscope/resolver.hpp>

namespace ringscope::filter_test {

inline FieldInfo field(std::string name, std::string type, uint32_t offset, uint32_t size, uint32_t flags) {
    FieldInfo f;
    f.name = std::move(name);
    f.type = std::move(type);
    f.offset = offset;
    f.size = size;
    f.elem_size = size;
    f.flags = flags;
    return f;
}

inline std::vector<FieldInfo> common_fields() {
    return {field("common_type", "unsigned short", 0, 2, 0), field("common_flags", "unsigned char", 2, 1, 0),
            field("common_preempt_count", "unsigned char", 3, 1, 0),
            field("common_pid", "int", 4, 4, kFieldSigned)};
}

// One symbol table entry per address range, as a kallsyms resolver would answer.
class StubResolvers : public ResolverService {
  public:
    void add(std::string, std::shared_ptr<const SymbolResolver>) override {}
    std::optional<Symbol> lookup(std::string_view domain, uint64_t addr) const override {
        if (domain != kKernelDomain) return std::nullopt;
        auto it = symbols_.upper_bound(addr);
        if (it == symbols_.begin()) return std::nullopt;
        --it;
        Symbol s;
        s.name = it->second;
        s.start = it->first;
        return s;
    }
    bool has(std::string_view domain) const override { return domain == kKernelDomain; }
    std::vector<std::string> domains() const override { return {std::string(kKernelDomain)}; }
    void define(uint64_t addr, std::string name) { symbols_[addr] = std::move(name); }

  private:
    std::map<uint64_t, std::string> symbols_;
};

class StubContext : public TraceContext {
  public:
    std::string_view comm(int pid) const override {
        if (pid == 0) return "<idle>";
        auto it = comms_.find(pid);
        return it == comms_.end() ? std::string_view("<...>") : std::string_view(it->second);
    }
    void register_comm(int pid, std::string_view comm) override { comms_[pid] = std::string(comm); }
    const EventType* type_by_id(uint32_t) const override { return nullptr; }
    const EventType* find_type(std::string_view, std::string_view) const override { return nullptr; }
    const ResolverService& resolvers() const override { return resolvers_; }
    std::string_view source_name() const override { return "stub"; }
    int cpu_count() const override { return 4; }
    int long_size() const override { return 8; }
    bool big_endian() const override { return false; }

    StubResolvers resolvers_;

  private:
    std::map<int, std::string> comms_;
};

// A little-endian payload writer.
class Payload {
  public:
    explicit Payload(size_t size) : bytes_(size, 0) {}
    template <class T>
    Payload& put(size_t off, T v) {
        std::memcpy(bytes_.data() + off, &v, sizeof v);
        return *this;
    }
    Payload& str(size_t off, std::string_view s) {
        std::memcpy(bytes_.data() + off, s.data(), s.size());
        return *this;
    }
    std::vector<uint8_t>& bytes() { return bytes_; }

  private:
    std::vector<uint8_t> bytes_;
};

}  // namespace ringscope::filter_test
