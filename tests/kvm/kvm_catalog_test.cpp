// The kvm printer on event types as the framework's format parser builds them (framework/format):
// its value tables and its default print for the cases where the reference falls back to it.
#include <gtest/gtest.h>

#include <sstream>

#include "framework/format/format_catalog.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"
#include "kvm_printer.hpp"
#include "test_format.hpp"

using namespace kvm_test;
using ringscope::Event;
using ringscope::TextBuffer;
using ringscope::format::FormatCatalog;
using ringscope::kvm::KvmPrinter;

namespace {

class CatalogPrintContext final : public ringscope::PrintContext {
  public:
    explicit CatalogPrintContext(const FormatCatalog& c) : catalog_(c) {}
    void print_default(const Event& ev, TextBuffer& out) override { catalog_.print_info(ev, out); }
    void print_field(const Event&, std::string_view, TextBuffer&) override {}
    void register_comm(int, std::string_view) override {}

  private:
    const FormatCatalog& catalog_;
};

std::string unescape(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
            char c = s[++i];
            out.push_back(c == '0' ? '\0' : c == 'n' ? '\n' : c);
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

}  // namespace

TEST(KvmPrinterWithFormatCatalog, MatchesLibtraceeventPluginOnOracleCases) {
    std::istringstream cases(read_file(data_path("plugin-oracle/cases.txt")));
    std::istringstream expected(read_file(data_path("plugin-oracle/expected.txt")));
    std::string kallsyms_text, line;
    std::vector<std::string> lines;
    while (std::getline(cases, line)) {
        if (line.rfind("K ", 0) == 0) kallsyms_text += line.substr(2) + "\n";
        lines.push_back(line);
    }
    auto guest = ringscope::symbols::KallsymsResolver::parse(kallsyms_text, "cases");
    ASSERT_TRUE(guest);
    int checked = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].empty() || lines[i][0] != 'C') continue;
        std::istringstream in(lines[i]);
        std::string kind, file, system, tok;
        int pid = 0;
        in >> kind >> file >> system >> pid;
        std::vector<std::pair<std::string, std::string>> fields;
        while (in >> tok) fields.emplace_back(tok.substr(0, tok.find('=')), tok.substr(tok.find('=') + 1));
        bool big = kind == "CB";
        FormatCatalog catalog(8, big);
        auto type = catalog.add_format(read_file(data_path(file)), system);
        ASSERT_TRUE(type) << file << ": " << type.error().to_string();

        FakeContext ctx(big);
        ctx.resolvers_.add("guest", *guest);
        KvmPrinter printer;
        CatalogPrintContext pc(catalog);
        printer.begin(ctx);
        auto record = build_record(**type, pid, fields, big);
        Event ev(*type, &ctx, record, 0, 0);
        TextBuffer out;
        ASSERT_TRUE(printer.print(ev, pc, out)) << lines[i];

        std::string oracle;
        ASSERT_TRUE(std::getline(expected, oracle));
        oracle = unescape(oracle);
        if (!oracle.empty() && oracle.back() == '\0') oracle.pop_back();
        if (i + 1 < lines.size() && lines[i + 1].rfind("D ", 0) == 0) oracle = lines[i + 1].substr(2);
        EXPECT_EQ(out.view(), oracle) << lines[i];
        ++checked;
    }
    EXPECT_EQ(checked, 44);
}
