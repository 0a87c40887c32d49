// Symbol look-ups per second: ringscope's KallsymsResolver against libtraceevent's function map on
// the same table (the kallsyms a committed trace carries), for addresses spread over the kernel text
// (most inside a function, some exact starts), plus the cost of building each table.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "framework/io/trace_dat_reader.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"
#include "framework/symbols/kernel_sections_resolver.hpp"

#ifdef RINGSCOPE_HAVE_TRACEEVENT
#include <traceevent/event-parse.h>
#endif

namespace {

using namespace ringscope;

const std::string& kallsyms_text() {
    static const std::string text = [] {
        const std::string path = std::string(RINGSCOPE_TEST_DATA_DIR) + "/kvm-agent/host.dat";
        auto r = io::TraceDatReader::open(path);
        if (!r) {
            std::fprintf(stderr, "symbols_bench: %s\n", r.error().to_string().c_str());
            std::exit(1);
        }
        return r->metadata().kallsyms;
    }();
    return text;
}

// 64k addresses: uniform over the span of the table's text symbols, so look-ups land anywhere.
const std::vector<uint64_t>& addresses() {
    static const std::vector<uint64_t> addrs = [] {
        auto table = symbols::KallsymsResolver::parse(kallsyms_text(), "bench");
        std::vector<uint64_t> starts;
        for (size_t i = 0; table && i < kallsyms_text().size();) {
            const size_t eol = kallsyms_text().find('\n', i);
            const std::string line = kallsyms_text().substr(i, eol - i);
            i = eol == std::string::npos ? kallsyms_text().size() : eol + 1;
            if (line.size() > 19 && (line[17] == 't' || line[17] == 'T'))
                starts.push_back(std::strtoull(line.c_str(), nullptr, 16));
        }
        std::sort(starts.begin(), starts.end());
        std::mt19937_64 rng(42);
        std::vector<uint64_t> out;
        if (starts.size() < 2) return out;
        std::uniform_int_distribution<uint64_t> pick(starts.front(), starts.back());
        for (int i = 0; i < 65536; ++i)
            out.push_back(i % 8 == 0 ? starts[pick(rng) % starts.size()] : pick(rng));
        return out;
    }();
    return addrs;
}

void BM_RingscopeParse(benchmark::State& state) {
    for (auto _ : state) {
        auto t = symbols::KallsymsResolver::parse(kallsyms_text(), "bench");
        if (!t) {
            state.SkipWithError(t.error().to_string().c_str());
            return;
        }
        benchmark::DoNotOptimize(t->get());
        state.counters["symbols"] = static_cast<double>((*t)->size());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kallsyms_text().size()));
}
BENCHMARK(BM_RingscopeParse)->Unit(benchmark::kMillisecond);

void BM_RingscopeLookup(benchmark::State& state) {
    auto t = symbols::KallsymsResolver::parse(kallsyms_text(), "bench");
    const auto& addrs = addresses();
    if (!t || addrs.empty()) {
        state.SkipWithError("no symbol table");
        return;
    }
    size_t i = 0, found = 0;
    for (auto _ : state) {
        auto s = (*t)->lookup(addrs[i++ & 65535]);
        found += s.has_value();
        benchmark::DoNotOptimize(s);
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
    state.counters["hit_share"] = static_cast<double>(found) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_RingscopeLookup);

// A previous boot of the same kernel: _text 256 MiB lower, each module 8 MiB lower than this boot
// loaded it (its extent taken from its text symbols), as LAST_BOOT_INFO and MODULES_FILE would say.
constexpr uint64_t kTextShift = 0x10000000, kModuleShift = 0x800000;

struct Sections {
    std::string modules, last_boot;
};

Sections sections_of(const symbols::KallsymsResolver& table) {
    std::map<std::string, std::pair<uint64_t, uint64_t>> span;  // module -> [first, last] symbol
    for (size_t i = 0; i < kallsyms_text().size();) {
        const size_t eol = std::min(kallsyms_text().find('\n', i), kallsyms_text().size());
        const std::string line = kallsyms_text().substr(i, eol - i);
        i = eol + 1;
        const size_t open = line.find("\t[");
        // text only: a module's per-cpu variables lie at small offsets, far from its memory
        if (open == std::string::npos || line.size() < 19 || (line[17] != 't' && line[17] != 'T')) continue;
        const std::string mod = line.substr(open + 2, line.size() - open - 3);
        const uint64_t a = std::strtoull(line.c_str(), nullptr, 16);
        auto [it, fresh] = span.try_emplace(mod, a, a);
        it->second.first = std::min(it->second.first, a);
        it->second.second = std::max(it->second.second, a);
    }
    Sections s;
    char line[160];
    std::snprintf(line, sizeof line, "%llx\t[kernel]\n",
                  static_cast<unsigned long long>(table.address_of("_text").value_or(0) - kTextShift));
    s.last_boot = line;
    for (const auto& [mod, sp] : span) {
        std::snprintf(line, sizeof line, "%s %llu 0 - Live 0x%llx\n", mod.c_str(),
                      static_cast<unsigned long long>(sp.second - sp.first + 0x1000),
                      static_cast<unsigned long long>(sp.first));
        s.modules += line;
        std::snprintf(line, sizeof line, "%llx\t%s\n",
                      static_cast<unsigned long long>(sp.first - kModuleShift), mod.c_str());
        s.last_boot += line;
    }
    return s;
}

// The same addresses as BM_RingscopeLookup, as the previous boot recorded them, through the
// resolver report uses for a file with both sections (relocation, then the module check).
void BM_RingscopeLookupRelocated(benchmark::State& state) {
    auto t = symbols::KallsymsResolver::parse(kallsyms_text(), "bench");
    if (!t || addresses().empty()) {
        state.SkipWithError("no symbol table");
        return;
    }
    const Sections s = sections_of(**t);
    auto mods = symbols::ModuleList::parse(s.modules);
    auto info = symbols::LastBootInfo::parse(s.last_boot);
    if (!mods || !info) {
        state.SkipWithError("sections do not parse");
        return;
    }
    auto reloc = symbols::BootRelocation::make(*info, (*t)->address_of("_text"), &*mods);
    if (!reloc) {
        state.SkipWithError(reloc.error().to_string().c_str());
        return;
    }
    const symbols::KernelSectionsResolver k(*t, *mods, *reloc);
    std::vector<uint64_t> prev;
    for (uint64_t a : addresses()) prev.push_back(mods->find(a) ? a - kModuleShift : a - kTextShift);
    size_t i = 0, found = 0;
    for (auto _ : state) {
        auto sym = k.lookup(prev[i++ & 65535]);
        found += sym.has_value();
        benchmark::DoNotOptimize(sym);
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
    state.counters["hit_share"] = static_cast<double>(found) / static_cast<double>(state.iterations());
    state.counters["modules"] = static_cast<double>(mods->modules().size());
}
BENCHMARK(BM_RingscopeLookupRelocated);

#ifdef RINGSCOPE_HAVE_TRACEEVENT
struct TepTable {
    tep_handle* tep = tep_alloc();
    TepTable() {
        if (!tep || tep_parse_kallsyms(tep, kallsyms_text().c_str()) != 0) std::abort();
    }
    ~TepTable() { tep_free(tep); }
    TepTable(const TepTable&) = delete;
    TepTable& operator=(const TepTable&) = delete;
};

void BM_TraceeventParse(benchmark::State& state) {
    for (auto _ : state) {
        // libtraceevent sorts its function list at the first look-up: part of building the table.
        TepTable t;
        benchmark::DoNotOptimize(tep_find_function(t.tep, addresses().front()));
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kallsyms_text().size()));
}
BENCHMARK(BM_TraceeventParse)->Unit(benchmark::kMillisecond);

void BM_TraceeventLookup(benchmark::State& state) {
    TepTable t;
    const auto& addrs = addresses();
    size_t i = 0, found = 0;
    for (auto _ : state) {
        // What a %pS print needs: the name and the start (for +0xOFF).
        const uint64_t a = addrs[i++ & 65535];
        const char* name = tep_find_function(t.tep, a);
        found += name != nullptr;
        benchmark::DoNotOptimize(name);
        benchmark::DoNotOptimize(tep_find_function_address(t.tep, a));
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
    state.counters["hit_share"] = static_cast<double>(found) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_TraceeventLookup);
#endif

}  // namespace

BENCHMARK_MAIN();
