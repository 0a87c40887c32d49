#include "printers_test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "cfg80211_printer.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"
#include "function_printer.hpp"
#include "futex_printer.hpp"
#include "hrtimer_printer.hpp"
#include "jbd2_printer.hpp"
#include "kmem_printer.hpp"
#include "mac80211_printer.hpp"
#include "scsi_printer.hpp"
#include "tlb_printer.hpp"
#include "xen_printer.hpp"

namespace printers_test {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string data_dir() {
    return RINGSCOPE_TEST_DATA_DIR;
}

PrinterSet::PrinterSet() {
    handlers_.push_back(std::make_unique<ringscope::hrtimer::HrtimerPrinter>());
    handlers_.push_back(std::make_unique<ringscope::kmem::KmemPrinter>());
    handlers_.push_back(std::make_unique<ringscope::tlb::TlbPrinter>());
    handlers_.push_back(std::make_unique<ringscope::futex::FutexPrinter>());
    // the function plugin's option defaults, as the plugin registers them
    static const ringscope::PrintOptionValue off{false, ""}, on{true, ""};
    handlers_.push_back(std::make_unique<ringscope::function::FunctionPrinter>(
        ringscope::function::FunctionOptions{&off, &on, &off}));
    handlers_.push_back(std::make_unique<ringscope::jbd2::Jbd2Printer>());
    handlers_.push_back(std::make_unique<ringscope::mac80211::Mac80211Printer>());
    handlers_.push_back(std::make_unique<ringscope::xen::XenPrinter>());
    handlers_.push_back(std::make_unique<ringscope::cfg80211::Cfg80211Printer>());
    handlers_.push_back(std::make_unique<ringscope::scsi::ScsiPrinter>());
}

ringscope::EventHandler* PrinterSet::handler_for(const ringscope::EventType& t) const {
    for (const auto& h : handlers_)
        for (const auto& m : h->subscriptions())
            if (m.matches(t.system, t.name)) return h.get();
    return nullptr;
}

namespace {

void put_le(std::vector<uint8_t>& data, size_t off, size_t size, uint64_t v) {
    for (size_t i = 0; i < size && i < 8 && off + i < data.size(); ++i)
        data[off + i] = static_cast<uint8_t>(v >> (8 * i));
}

void put_hex(std::vector<uint8_t>& data, size_t off, const std::string& hex) {
    for (size_t i = 0; 2 * i + 1 < hex.size() && off + i < data.size(); ++i)
        data[off + i] = static_cast<uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
}

}  // namespace

std::vector<Case> load_cases(const std::string& path, ringscope::format::FormatCatalog& cat,
                             TestContext& ctx) {
    std::vector<Case> cases;
    std::istringstream in(read_file(path));
    std::string line, kallsyms;
    std::map<std::string, const ringscope::EventType*> types;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.rfind("K ", 0) == 0) {
            kallsyms += line.substr(2) + "\n";
        } else if (line.rfind("D ", 0) == 0) {
            if (cases.empty()) {
                ADD_FAILURE() << path << ":" << lineno << ": correction before any case";
                continue;
            }
            cases.back().corrected = true;
            cases.back().correction = line.substr(2);
        } else if (line.rfind("C ", 0) == 0) {
            std::istringstream ls(line.substr(2));
            std::string file, system, tok;
            size_t size = 0;
            Case c;
            c.line = lineno;
            c.text = line;
            ls >> file >> system >> c.cpu >> c.ts >> size;
            if (!ls || size < 8 || size > 4096) {
                ADD_FAILURE() << path << ":" << lineno << ": malformed case";
                continue;
            }
            auto& type = types[file];
            if (!type) {
                auto t = cat.add_format(read_file(data_dir() + "/" + file), system);
                if (!t) {
                    ADD_FAILURE() << file << ": " << t.error().to_string();
                    continue;
                }
                type = *t;
            }
            c.type = type;
            c.data.assign(size, 0);
            put_le(c.data, 0, 2, type->id);
            while (ls >> tok) {
                const size_t eq = tok.find('=');
                if (eq == std::string::npos) continue;
                const std::string name = tok.substr(0, eq), value = tok.substr(eq + 1);
                if (name[0] == '@') {
                    put_hex(c.data, std::stoul(name.substr(1), nullptr, 0), value.substr(4));
                    continue;
                }
                const ringscope::FieldInfo* f = type->find_field(name);
                if (!f) {
                    ADD_FAILURE() << path << ":" << lineno << ": no field " << name;
                    continue;
                }
                if (value.rfind("hex:", 0) == 0)
                    put_hex(c.data, f->offset, value.substr(4));
                else
                    put_le(c.data, f->offset, f->size, std::stoull(value, nullptr, 0));
            }
            cases.push_back(std::move(c));
        }
    }
    auto r = ringscope::symbols::KallsymsResolver::parse(kallsyms, "cases.txt");
    EXPECT_TRUE(r) << (r ? "" : r.error().to_string());
    if (r) ctx.resolvers_.add(std::string(ringscope::kKernelDomain), *r);
    return cases;
}

std::vector<std::string> parse_oracle_output(const std::string& all) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < all.size()) {
        const size_t nl = all.find('\n', pos);
        if (nl == std::string::npos) break;
        const size_t len = std::stoul(all.substr(pos, nl - pos));
        out.push_back(all.substr(nl + 1, len));
        pos = nl + 1 + len + 1;
    }
    return out;
}

std::string print_event(const PrinterSet& set, const ringscope::Event& ev, ringscope::PrintContext& pc,
                        const ringscope::format::FormatCatalog& cat) {
    ringscope::TextBuffer out;
    ringscope::EventHandler* h = set.handler_for(ev.type());
    if (!h || !h->print(ev, pc, out)) {
        out.clear();
        cat.print_info(ev, out);
    }
    return std::string(out.view());
}

}  // namespace printers_test
