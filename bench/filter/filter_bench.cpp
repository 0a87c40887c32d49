// Filter evaluations per second: ringscope's EventFilter/FilterSet against libtraceevent's
// tep_filter_match on the same records of a committed trace (host-vm2.dat, 10.7k records of 17
// sched/irq/softirq types), plus a synthetic single-event case. items/s = records decided per second.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include <ringscope/filter.hpp>

#include "filter_test_support.hpp"
#ifdef RINGSCOPE_HAVE_TRACECMD
#include "oracle_trace.hpp"
#endif

namespace {

using namespace ringscope;

const char* const kFilters[] = {
    "sched_switch: prev_pid == 0",                                       // one type, numeric
    ".*: common_pid == 15 || common_pid == 735",                         // every type
    "sched_switch: prev_comm == \"swapper/1\" || next_comm =~ \"rcu\"",  // char arrays, literal regex
    ".*: COMM =~ \"^rcu\"",                                              // comm lookup + anchored literal
    ".*: COMM =~ \"^rcu.*pre\"",                                         // comm lookup + regexec
    "sched_wakeup,sched_waking: target_cpu == 1 && !(prio > 120)",       // boolean structure
};

#ifdef RINGSCOPE_HAVE_TRACECMD
const filter_test::Trace& trace() {
    static filter_test::Trace t(std::string(RINGSCOPE_TEST_DATA_DIR) + "/kvm-agent/host-vm2.dat");
    return t;
}

void BM_Ringscope(benchmark::State& state) {
    const auto& t = trace();
    auto f = EventFilter::parse(kFilters[state.range(0)], t.types());
    if (!f) {
        state.SkipWithError(f.error().to_string().c_str());
        return;
    }
    std::vector<Event> events;
    for (const auto& r : t.records()) events.push_back(t.event(r));
    size_t hits = 0;
    for (auto _ : state) {
        for (const Event& ev : events) hits += f->test(ev) == FilterResult::match;
        benchmark::DoNotOptimize(hits);
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(events.size()));
    state.SetLabel(kFilters[state.range(0)]);
}

void BM_Libtraceevent(benchmark::State& state) {
    const auto& t = trace();
    tep_event_filter* f = tep_filter_alloc(t.tep());
    if (tep_filter_add_filter_str(f, kFilters[state.range(0)]) != 0) {
        state.SkipWithError("tep_filter_add_filter_str failed");
        tep_filter_free(f);
        return;
    }
    std::vector<tep_record> recs;
    for (const auto& r : t.records()) recs.push_back(t.tep_rec(r));
    size_t hits = 0;
    for (auto _ : state) {
        for (tep_record& rec : recs) hits += tep_filter_match(f, &rec) == TEP_ERRNO__FILTER_MATCH;
        benchmark::DoNotOptimize(hits);
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(recs.size()));
    state.SetLabel(kFilters[state.range(0)]);
    tep_filter_free(f);
}

void BM_RingscopeSet(benchmark::State& state) {
    const auto& t = trace();
    FilterSet set;
    if (!set.add(kFilters[1], false, t.types()) || !set.add("sched_switch", false, t.types()) ||
        !set.add("sched_switch: next_pid == 0", true, t.types())) {
        state.SkipWithError("add failed");
        return;
    }
    std::vector<Event> events;
    for (const auto& r : t.records()) events.push_back(t.event(r));
    size_t shown = 0;
    for (auto _ : state) {
        for (const Event& ev : events) shown += set.accept(ev);
        benchmark::DoNotOptimize(shown);
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(events.size()));
}

BENCHMARK(BM_Ringscope)->DenseRange(0, 5);
BENCHMARK(BM_Libtraceevent)->DenseRange(0, 5);
BENCHMARK(BM_RingscopeSet);
#endif

// One hand-built sched_switch event, decided over and over: the evaluator alone.
void BM_SyntheticSwitch(benchmark::State& state) {
    EventType t;
    t.id = 300;
    t.system = "sched";
    t.name = "sched_switch";
    t.common_fields = filter_test::common_fields();
    t.fields = {filter_test::field("prev_comm", "char[16]", 8, 16, kFieldArray | kFieldString),
                filter_test::field("prev_pid", "pid_t", 24, 4, kFieldSigned),
                filter_test::field("next_pid", "pid_t", 28, 4, kFieldSigned)};
    t.finalize();
    const EventType* types[] = {&t};
    filter_test::StubContext ctx;
    filter_test::Payload p(32);
    p.put<uint16_t>(0, 300).put<int32_t>(4, 1).str(8, "kworker/0:1").put<int32_t>(24, 7).put<int32_t>(28, 9);
    const Event ev(&t, &ctx, p.bytes(), 0, 0);
    auto f =
        EventFilter::parse("sched_switch: (prev_pid == 7 && next_pid > 3) || prev_comm == \"bash\"", types);
    size_t hits = 0;
    for (auto _ : state) {
        hits += f->matches(ev);
        benchmark::DoNotOptimize(hits);
    }
    state.SetItemsProcessed(int64_t(state.iterations()));
}
BENCHMARK(BM_SyntheticSwitch);

}  // namespace

BENCHMARK_MAIN();
