// Test support: an EventType from a kernel `format` file (fields and the __print_symbolic /
// __print_flags tables of its print fmt), a TraceContext with a resolver service, and record
// building. A small stand-in until framework/format's parser can be used here.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ringscope/context.hpp>
#include <ringscope/event.hpp>
#include <ringscope/event_type.hpp>
#include <ringscope/handler.hpp>

#include "framework/symbols/resolver_registry.hpp"
#include "tests/support/file_text.hpp"

namespace kvm_test {

using ringscope::test::read_file;
std::string data_path(const std::string& rel);  // under tests/data/kvm/

// Parses FILE's fields and value tables; ADD_FAILURE()s on a malformed file.
std::unique_ptr<ringscope::EventType> load_format(const std::string& path, const std::string& system);

class FakeContext final : public ringscope::TraceContext {
  public:
    explicit FakeContext(bool big_endian = false) : big_(big_endian) {}
    std::string_view comm(int) const override { return "<...>"; }
    void register_comm(int, std::string_view) override {}
    const ringscope::EventType* type_by_id(uint32_t) const override { return nullptr; }
    const ringscope::EventType* find_type(std::string_view, std::string_view) const override {
        return nullptr;
    }
    const ringscope::ResolverService& resolvers() const override { return resolvers_; }
    std::string_view source_name() const override { return "test"; }
    int cpu_count() const override { return 1; }
    int long_size() const override { return 8; }
    bool big_endian() const override { return big_; }

    ringscope::symbols::ResolverRegistry resolvers_;

  private:
    bool big_;
};

// Writes what print_default would: a marker, so tests see that the fallback ran.
class FakePrintContext final : public ringscope::PrintContext {
  public:
    void print_default(const ringscope::Event& ev, ringscope::TextBuffer& out) override;
    void print_field(const ringscope::Event&, std::string_view, ringscope::TextBuffer&) override {}
    void register_comm(int, std::string_view) override {}
    int defaults = 0;
};

// A record of TYPE: common_type and common_pid set, then NAME=VALUE fields (numbers; "hex:..." bytes).
std::vector<uint8_t> build_record(const ringscope::EventType& type, int pid,
                                  const std::vector<std::pair<std::string, std::string>>& fields,
                                  bool big_endian);

}  // namespace kvm_test
