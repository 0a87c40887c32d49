// framework/io throughput: walking the pages of one CPU forwards and backwards for zstd, zlib and
// uncompressed files, with and without counting the records in each page, against libtracecmd's
// record loop (tracecmd_read_data) on the same files when libtracecmd is installed (oracle only).
//
// The input is kvm-agent/host.dat's 902 pages repeated RINGSCOPE_IO_BENCH_REPEAT times (default
// 64: 236 MB of ring-buffer data, 4.1M records), written once per compression with TraceDatWriter
// into the build tree.
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#ifdef RINGSCOPE_HAVE_TRACECMD
// The few libtracecmd calls the reference loop needs (its headers pull in C-only tracefs.h).
extern "C" {
struct tracecmd_input;
struct tep_record;
tracecmd_input* tracecmd_open(const char* file, int flags);
tep_record* tracecmd_read_data(tracecmd_input* handle, int cpu);
void tracecmd_free_record(tep_record* record);
void tracecmd_close(tracecmd_input* handle);
void tracecmd_set_loglevel(int level);
}
constexpr int kTracecmdNoPlugins = 1;  // TRACECMD_FL_LOAD_NO_PLUGINS
constexpr int kTepLogNone = 0;         // TEP_LOG_NONE
#endif

using namespace ringscope;
using namespace ringscope::io;

namespace {

int repeat_count() {
    const char* e = std::getenv("RINGSCOPE_IO_BENCH_REPEAT");
    return e ? std::max(1, std::atoi(e)) : 64;
}

// Records in one sub-buffer (64-bit kernel layout), to compare with a record-level loop.
int count_records(std::span<const uint8_t> page) {
    uint64_t commit;
    std::memcpy(&commit, page.data() + 8, 8);
    commit &= (1u << 27) - 1;
    const size_t end = std::min<size_t>(page.size(), 16 + commit);
    int n = 0;
    for (size_t at = 16; at + 4 <= end;) {
        uint32_t h;
        std::memcpy(&h, page.data() + at, 4);
        const uint32_t t = h & 31;
        if (t == 29) {
            if ((h >> 5) == 0 || at + 8 > end) break;
            uint32_t len;
            std::memcpy(&len, page.data() + at + 4, 4);
            at += 4 + len;
        } else if (t >= 30) {
            at += 8;
        } else if (t == 0) {
            if (at + 8 > end) break;
            uint32_t len;
            std::memcpy(&len, page.data() + at + 4, 4);
            at += 4 + ((len + 3) & ~3u);
            ++n;
        } else {
            at += 4 + t * 4;
            ++n;
        }
    }
    return n;
}

const std::string& bench_file(Compression c) {
    static std::map<Compression, std::string> files;
    auto it = files.find(c);
    if (it != files.end()) return it->second;
    const int rep = repeat_count();
    const std::string dir = std::string(RINGSCOPE_BINARY_DIR) + "/bench";
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/io-bench-" + compression_name(c) + "-" + std::to_string(rep) + ".dat";
    if (!std::filesystem::exists(path)) {
        auto src = TraceDatReader::open(std::string(RINGSCOPE_TEST_DATA_DIR) + "/kvm-agent/host.dat");
        if (!src) std::abort();
        auto pages = src->cpu_pages(0, 0);
        if (!pages) std::abort();
        std::vector<uint8_t> all;
        for (;;) {
            auto p = pages->next();
            if (!p || p->empty()) break;
            all.insert(all.end(), p->begin(), p->end());
        }
        WriterConfig cfg;
        cfg.compression = c;
        const std::string tmp = path + ".tmp";
        auto w = TraceDatWriter::create(tmp, cfg, src->metadata(), {BufferSpec{"", "tsc2nsec", 0, {0}}});
        if (!w || !(*w)->begin_cpu()) std::abort();
        for (int i = 0; i < rep; ++i)
            if (!(*w)->write_pages(all)) std::abort();
        if (!(*w)->end_cpu() || !(*w)->finish()) std::abort();
        std::filesystem::rename(tmp, path);
    }
    return files[c] = path;
}

Compression arg_compression(int64_t a) {
    return static_cast<Compression>(a);
}

void BM_PagesForward(benchmark::State& state) {
    const Compression c = arg_compression(state.range(0));
    auto r = TraceDatReader::open(bench_file(c));
    if (!r) return state.SkipWithError(r.error().to_string().c_str());
    uint64_t bytes = 0, pages = 0;
    for (auto _ : state) {
        auto p = r->cpu_pages(0, 0);
        uint64_t sum = 0;
        for (;;) {
            auto pg = p->next();
            if (!pg || pg->empty()) break;
            sum += (*pg)[0] + (*pg)[pg->size() - 1];
            bytes += pg->size();
            ++pages;
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetBytesProcessed(static_cast<int64_t>(bytes));
    state.counters["pages/s"] = benchmark::Counter(static_cast<double>(pages), benchmark::Counter::kIsRate);
    state.SetLabel(compression_name(c));
}

void BM_PagesReverse(benchmark::State& state) {
    const Compression c = arg_compression(state.range(0));
    auto r = TraceDatReader::open(bench_file(c));
    if (!r) return state.SkipWithError(r.error().to_string().c_str());
    uint64_t bytes = 0, decompressions = 0, chunks = 0;
    for (auto _ : state) {
        auto p = r->cpu_pages(0, 0);
        uint64_t sum = 0;
        for (uint64_t i = p->page_count(); i-- > 0;) {
            auto pg = p->page(i);
            sum += (*pg)[0];
            bytes += pg->size();
        }
        decompressions += p->decompressions();
        chunks += p->chunk_count();
        benchmark::DoNotOptimize(sum);
    }
    state.SetBytesProcessed(static_cast<int64_t>(bytes));
    state.counters["decompressions/chunk"] = chunks ? static_cast<double>(decompressions) / chunks : 0;
    state.SetLabel(compression_name(c));
}

void BM_RecordsForward(benchmark::State& state) {
    const Compression c = arg_compression(state.range(0));
    auto r = TraceDatReader::open(bench_file(c));
    if (!r) return state.SkipWithError(r.error().to_string().c_str());
    uint64_t records = 0;
    for (auto _ : state) {
        auto p = r->cpu_pages(0, 0);
        for (;;) {
            auto pg = p->next();
            if (!pg || pg->empty()) break;
            records += count_records(*pg);
        }
    }
    state.counters["records/s"] =
        benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
    state.SetLabel(compression_name(c));
}

#ifdef RINGSCOPE_HAVE_TRACECMD
// The reference: libtracecmd's own record loop over the same CPU.
void BM_LibtracecmdRecords(benchmark::State& state) {
    const Compression c = arg_compression(state.range(0));
    tracecmd_set_loglevel(kTepLogNone);
    uint64_t records = 0;
    for (auto _ : state) {
        tracecmd_input* h = tracecmd_open(bench_file(c).c_str(), kTracecmdNoPlugins);
        if (!h) return state.SkipWithError("tracecmd_open failed");
        while (tep_record* rec = tracecmd_read_data(h, 0)) {
            ++records;
            tracecmd_free_record(rec);
        }
        tracecmd_close(h);
    }
    state.counters["records/s"] =
        benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
    state.SetLabel(compression_name(c));
}
BENCHMARK(BM_LibtracecmdRecords)->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

}  // namespace

// Arg: 0 none, 1 zlib, 2 zstd (Compression's values).
BENCHMARK(BM_PagesForward)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PagesReverse)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RecordsForward)->Arg(0)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
