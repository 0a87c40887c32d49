// Symbol look-ups per second: ringscope's KallsymsResolver against libtraceevent's function map on
// the same table (the kallsyms a committed trace carries), for addresses spread over the kernel text
// (most inside a function, some exact starts), plus the cost of building each table.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "framework/io/trace_dat_reader.hpp"
#include "framework/symbols/kallsyms_resolver.hpp"

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
