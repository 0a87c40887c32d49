// Test support for the printer plugins: the plugins' handlers side by side (their sources are
// compiled into the test), a trace context with a kallsyms resolver, a print context whose default
// print is the format catalog's, and the hand-built records of tests/data/printers/cases.txt.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ringscope/context.hpp>
#include <ringscope/handler.hpp>

#include "framework/format/format_catalog.hpp"
#include "framework/symbols/resolver_registry.hpp"

namespace printers_test {

std::string read_file(const std::string& path);
std::string data_dir();  // tests/data

// One handler of each printer plugin, and the first one subscribed to an event.
class PrinterSet {
  public:
    PrinterSet();
    ringscope::EventHandler* handler_for(const ringscope::EventType& t) const;

  private:
    std::vector<std::unique_ptr<ringscope::EventHandler>> handlers_;
};

class TestContext final : public ringscope::TraceContext {
  public:
    explicit TestContext(const ringscope::format::FormatCatalog& cat) : cat_(cat) {}
    std::string_view comm(int) const override { return "<...>"; }
    void register_comm(int, std::string_view) override {}
    const ringscope::EventType* type_by_id(uint32_t id) const override { return cat_.by_id(id); }
    const ringscope::EventType* find_type(std::string_view s, std::string_view n) const override {
        return cat_.find(s, n);
    }
    const ringscope::ResolverService& resolvers() const override { return resolvers_; }
    std::string_view source_name() const override { return "cases"; }
    int cpu_count() const override { return 4; }
    int long_size() const override { return 8; }
    bool big_endian() const override { return false; }

    ringscope::symbols::ResolverRegistry resolvers_;

  private:
    const ringscope::format::FormatCatalog& cat_;
};

// print_default = the catalog's TEP_PRINT_INFO text (what libtraceevent prints without a plugin).
class CatalogPrintContext final : public ringscope::PrintContext {
  public:
    explicit CatalogPrintContext(const ringscope::format::FormatCatalog& cat) : cat_(cat) {}
    void print_default(const ringscope::Event& ev, ringscope::TextBuffer& out) override {
        cat_.print_info(ev, out);
    }
    void print_field(const ringscope::Event&, std::string_view, ringscope::TextBuffer&) override {}
    void register_comm(int, std::string_view) override {}

  private:
    const ringscope::format::FormatCatalog& cat_;
};

// One "C" line of cases.txt, built into a record, and its "D" correction if any.
struct Case {
    int line = 0;
    std::string text;  // the C line, for messages
    const ringscope::EventType* type = nullptr;
    int cpu = 0;
    uint64_t ts = 0;
    std::vector<uint8_t> data;
    bool corrected = false;
    std::string correction;
};

// Parses cases.txt: formats go into `cat`, kallsyms into `ctx`'s "kernel" domain. ADD_FAILURE()s
// on a malformed line.
std::vector<Case> load_cases(const std::string& path, ringscope::format::FormatCatalog& cat,
                             TestContext& ctx);

// "<length>\n<text>\n" records, as the oracle writes them.
std::vector<std::string> parse_oracle_output(const std::string& text);

// The plugin's text for an event, or the default print when no plugin handles it.
std::string print_event(const PrinterSet& set, const ringscope::Event& ev, ringscope::PrintContext& pc,
                        const ringscope::format::FormatCatalog& cat);

}  // namespace printers_test
