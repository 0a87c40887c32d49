// Nanoseconds per event of the SDK's print_info (and of a whole sdk_iterate line) on the records of
// a real trace held in memory, so that neither the page walk nor the decompression is measured:
// the first RINGSCOPE_BENCH_EVENTS (default 200000) events of $RINGSCOPE_BENCH_TRACE (default
// tests/data/traces/full.dat), payloads copied out, printed in order over and over.
//   BM_PrintInfo       Trace::print_info into one reused TextBuffer
//   BM_PrintInfoBulk   the same over the event types that make 1 % or more of the sample each
//   BM_Line            "COMM-PID [CPU] NAME: INFO" with one TextBuffer append per piece of the head
//                      (bench/iterate/sdk_iterate writes the head with one begin_write instead)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <ringscope/trace.hpp>

namespace {

using namespace ringscope;

std::string trace_path() {
    const char* env = std::getenv("RINGSCOPE_BENCH_TRACE");
    return env && *env ? env : std::string(RINGSCOPE_TEST_DATA_DIR) + "/traces/full.dat";
}

struct Sample {
    std::unique_ptr<Trace> trace;
    std::vector<std::vector<uint8_t>> payloads;
    std::vector<Event> events;  // over payloads
    std::string error;
};

const Sample& sample() {
    static const Sample s = [] {
        Sample r;
        TraceOpenOptions o;
        o.load_plugins = false;
        auto t = Trace::open(trace_path(), o);
        if (!t) {
            r.error = "cannot open " + trace_path() + ": " + t.error().to_string();
            return r;
        }
        r.trace = std::make_unique<Trace>(std::move(*t));
        const char* env = std::getenv("RINGSCOPE_BENCH_EVENTS");
        const size_t limit = env && *env ? std::strtoull(env, nullptr, 10) : 200000;
        struct Meta {
            const EventType* type;
            const TraceContext* ctx;
            uint64_t ts;
            int cpu;
        };
        std::vector<Meta> meta;
        for (const Event& ev : r.trace->events()) {
            if (r.payloads.size() == limit) break;
            r.payloads.emplace_back(ev.payload().begin(), ev.payload().end());
            meta.push_back(Meta{ev.type_ptr(), &ev.context(), ev.timestamp(), ev.cpu()});
        }
        for (size_t i = 0; i < meta.size(); ++i)
            r.events.emplace_back(meta[i].type, meta[i].ctx, r.payloads[i], meta[i].ts, meta[i].cpu);
        if (r.events.empty()) r.error = trace_path() + ": no events";
        return r;
    }();
    return s;
}

template <class PerEvent>
void run(benchmark::State& state, const std::vector<Event>& events, PerEvent&& per_event) {
    const Sample& s = sample();
    if (!s.error.empty()) {
        state.SkipWithError(s.error.c_str());
        return;
    }
    for (auto _ : state)
        for (const Event& ev : events) per_event(ev);
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(events.size()));
    state.counters["ns/event"] =
        benchmark::Counter(static_cast<double>(state.iterations() * events.size()),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_PrintInfo(benchmark::State& state) {
    TextBuffer out;
    size_t bytes = 0;
    run(state, sample().events, [&](const Event& ev) {
        out.clear();
        sample().trace->print_info(ev, out);
        bytes += out.size();
    });
    benchmark::DoNotOptimize(bytes);
}

// The event types that make up at least a hundredth of the sample each.
const std::vector<Event>& bulk_events() {
    static const std::vector<Event> bulk = [] {
        std::unordered_map<const EventType*, size_t> count;
        for (const Event& ev : sample().events) ++count[ev.type_ptr()];
        std::vector<Event> r;
        for (const Event& ev : sample().events)
            if (count[ev.type_ptr()] * 100 >= sample().events.size()) r.push_back(ev);
        return r;
    }();
    return bulk;
}

void BM_PrintInfoBulk(benchmark::State& state) {
    TextBuffer out;
    size_t bytes = 0;
    run(state, bulk_events(), [&](const Event& ev) {
        out.clear();
        sample().trace->print_info(ev, out);
        bytes += out.size();
    });
    benchmark::DoNotOptimize(bytes);
}

void BM_Line(benchmark::State& state) {
    TextBuffer line;
    size_t bytes = 0;
    run(state, sample().events, [&](const Event& ev) {
        line.clear();
        line.append(ev.comm());
        line.push_back('-');
        line.append_int(ev.pid());
        line.append(" [");
        const int cpu = ev.cpu();
        if (cpu >= 0 && cpu < 100) {
            line.push_back('0');
            if (cpu < 10) line.push_back('0');
        }
        line.append_int(cpu);
        line.append("] ");
        line.append(ev.name());
        line.append(": ");
        sample().trace->print_info(ev, line);
        line.push_back('\n');
        bytes += line.size();
    });
    benchmark::DoNotOptimize(bytes);
}

BENCHMARK(BM_PrintInfo)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PrintInfoBulk)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Line)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    if (!sample().error.empty()) {
        std::fprintf(stderr, "print_info_bench: %s\n", sample().error.c_str());
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
