// Events per second of the SDK's iteration hot paths, each over the whole trace per benchmark
// iteration: time merge alone (sub-buffer header walk + merge of the CPU streams, what
// iterate-and-count costs), plus field access (by handle, by name), plus print-fmt evaluation
// (print_info into one reused TextBuffer). The trace: tests/data/traces/full.dat (4 CPUs, 10.9k
// events of sched/irq/timer/syscalls), or $RINGSCOPE_BENCH_TRACE (e.g. record_big.sh's).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include <ringscope/trace.hpp>

namespace {

using namespace ringscope;

std::string trace_path() {
    const char* env = std::getenv("RINGSCOPE_BENCH_TRACE");
    return env && *env ? env : std::string(RINGSCOPE_TEST_DATA_DIR) + "/traces/full.dat";
}

// One open trace for all benchmarks (no plugins: the default print fmts are measured).
Trace* shared_trace() {
    static Expected<Trace> t = [] {
        TraceOpenOptions o;
        o.load_plugins = false;
        return Trace::open(trace_path(), o);
    }();
    return t ? &*t : nullptr;
}

template <class PerEvent>
void run_over_trace(benchmark::State& state, PerEvent&& per_event) {
    Trace* t = shared_trace();
    if (!t) {
        state.SkipWithError(("cannot open " + trace_path()).c_str());
        return;
    }
    int64_t events = 0;
    for (auto _ : state) {
        t->reset();
        for (const Event& ev : t->events()) {
            per_event(ev);
            ++events;
        }
    }
    state.SetItemsProcessed(events);
    state.SetLabel(trace_path());
}

void BM_TimeMerge(benchmark::State& state) {
    uint64_t sum = 0;
    run_over_trace(state, [&](const Event& ev) { sum += ev.timestamp(); });
    benchmark::DoNotOptimize(sum);
}

void BM_FieldByHandle(benchmark::State& state) {
    // Handles resolved once per type, as a handler does: common_pid plus the type's first field.
    uint64_t sum = 0;
    const EventType* last = nullptr;
    FieldHandle h{};
    run_over_trace(state, [&](const Event& ev) {
        if (&ev.type() != last) {
            last = &ev.type();
            h = last->fields.empty() ? FieldHandle{} : last->handle(last->fields.front().name);
        }
        sum += static_cast<uint64_t>(ev.pid()) + (h && h.size <= 8 ? ev.u64(h) : 0);
    });
    benchmark::DoNotOptimize(sum);
}

void BM_FieldByName(benchmark::State& state) {
    uint64_t sum = 0;
    run_over_trace(state, [&](const Event& ev) {
        if (auto v = ev.integer("common_pid")) sum += static_cast<uint64_t>(*v);
        if (!ev.type().fields.empty())
            if (auto v = ev.integer(ev.type().fields.front().name)) sum += static_cast<uint64_t>(*v);
    });
    benchmark::DoNotOptimize(sum);
}

void BM_PrintFmt(benchmark::State& state) {
    TextBuffer out;
    size_t bytes = 0;
    Trace* t = shared_trace();
    run_over_trace(state, [&](const Event& ev) {
        out.clear();
        t->print_info(ev, out);
        bytes += out.size();
    });
    benchmark::DoNotOptimize(bytes);
}

BENCHMARK(BM_TimeMerge)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FieldByHandle)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FieldByName)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PrintFmt)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
