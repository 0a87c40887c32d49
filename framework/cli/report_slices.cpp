// report -j N by time slices.
//
// Where no line's printing changes state (no plugin handler, report option, -r or filter), JOBS
// threads merge and format contiguous time ranges of the trace, each with its own streams, and this
// thread writes their text in order (engine/time_slicer.hpp says why that is the serial output).
// The first slice that is not exact (a CPU going back in time across a bound, a read error, an
// event type whose printing has side effects, a different common-field layout) and every later one
// are dropped: the slices written before it are exact on their own, and the serial merge goes on
// from where the last of them stopped, so the output, the errors and the exit code are those of
// one thread.
#include <cstdlib>

#include "framework/cli/report_run.hpp"
#include "framework/engine/time_slicer.hpp"
#include "framework/output/slice_writer.hpp"

namespace ringscope::cli {
namespace {

// The same sources with streams of their own, at the start (for another thread).
engine::EventMerger clone_merger(engine::EventMerger& m) {
    engine::EventMerger c;
    for (engine::MergeSource& s : m.sources())
        c.add({s.file, s.file_index, s.buffer, s.global_cpu, s.stream.clone()});
    return c;
}

// Slice size for report -j (ring-buffer bytes of the CPU with the most data per slice); tests set
// RINGSCOPE_SLICE_BYTES to cut small traces into many slices.
uint64_t slice_bytes() {
    constexpr uint64_t kDefault = uint64_t{1} << 20;
    const char* v = std::getenv("RINGSCOPE_SLICE_BYTES");
    if (!v || !*v) return kDefault;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    return *end || n == 0 ? kDefault : n;
}

}  // namespace

// A cache line of its own: each thread writes its info buffer for every line.
struct alignas(64) ReportRun::SliceWorker {
    std::unique_ptr<engine::SliceReader> reader;
    std::unique_ptr<TypeTables> types;
    TextBuffer info;
};

// What a slice found besides its text, for the checks made in slice order (a cache line of its
// own: the slots are filled by different threads).
struct alignas(64) ReportRun::SliceResult {
    std::vector<uint64_t> starts, ends;
    std::vector<std::optional<output::CommonLayout>> common;  // from its first event of each file
    uint64_t unknown = 0;
};

// Slice INDEX into OUT by worker W; true when it is exact (RES says where it started and ended).
bool ReportRun::print_slice(SliceWorker& w, SliceResult& res, size_t index, output::OutputBuffer& out,
                            const output::ReportStyle& style, const output::SliceWriter& writer) {
    res.unknown = 0;
    res.common.assign(set_.size(), std::nullopt);
    engine::SliceReader& reader = *w.reader;
    if (!reader.begin(index)) return false;
    res.starts = reader.starts();
    output::ReportLineWriter lines(out, style);
    const engine::Record* rec = nullptr;
    engine::MergeSource* src = nullptr;
    uint32_t n = 0;
    while (reader.next(rec, src)) {
        if ((++n & 4095) == 0 && writer.cancelled()) return false;
        engine::TraceFile& file = *src->file;
        const size_t fi = src->file_index;
        const EventType* type = file.type_of(rec->data, rec->size);
        if (!type) {
            ++res.unknown;
            continue;
        }
        if (!res.common[fi]) res.common[fi] = common_layout(set_, fi, type);
        w.types->resolve(fi, type);
        // Its printing may change what later lines print: only the serial merge prints it.
        if (w.types->in_order(fi, type->id)) return false;
        Event ev(type, &file, {rec->data, rec->size}, rec->ts, rec->cpu, rec->missed, rec->trailing);
        if (irq_hidden(ev, *res.common[fi])) continue;
        const int pid = ev.pid();
        const size_t h = source_handle_[reader.index_of(src)];
        write_stateless_line(lines, w.info, w.types->compiled(fi, type->id), swap_[fi] != 0, *dispatch_[fi],
                             handles_[h].prefix, ev, file.comm(pid), pid,
                             {file.in_usecs(), file.use_trace_clock()}, *res.common[fi]);
    }
    res.ends = reader.ends();
    return reader.exact();
}

bool ReportRun::print_slices(engine::EventMerger& merger, bool compile_direct,
                             const output::ReportStyle& style, output::OutputBuffer& buf, int jobs) {
    // The comm tables sort themselves on their first look-up: done here, before the threads read
    // them. Nothing registers names in this mode (no plugin handler), so it changes no name.
    for (size_t f = 0; f < set_.size(); ++f) (void)set_.file(f).comm(1);
    std::vector<SliceWorker> workers(static_cast<size_t>(jobs));
    std::vector<engine::EventMerger> own(workers.size());
    for (engine::EventMerger& m : own) m = clone_merger(merger);
    engine::share_slice_chunks(own, jobs);
    // Cut with streams of their own: a probe that fails leaves its stream failed, and the serial
    // merger's must stay untouched for what follows, the workers' able to print the slices before.
    engine::EventMerger probes = clone_merger(merger);
    const engine::SlicePlan plan = engine::SlicePlan::make(probes.sources(), slice_bytes(), jobs);
    for (size_t w = 0; w < workers.size(); ++w) {
        workers[w].reader = std::make_unique<engine::SliceReader>(std::move(own[w]), plan);
        workers[w].types = std::make_unique<TypeTables>(set_, dispatch_, compile_direct);
    }
    // Where the merge stands: at the start, then where the last slice written stopped.
    std::vector<uint64_t> at;
    for (auto& s : merger.sources()) {
        const engine::Record* r = s.stream.peek();
        at.push_back(r ? r->offset : engine::kStreamEnd);
    }

    // A slice's text is about twice its ring data (report lines are longer than the records); a
    // slice holds the plan's bytes on average and at most that much of each CPU. Room never
    // written costs no memory, while a buffer that grows copies what it holds into new pages.
    const uint64_t sources = std::max<size_t>(merger.sources().size(), 1);
    output::SliceWriter writer(
        jobs, static_cast<size_t>(std::min<uint64_t>(std::max<uint64_t>(4, 3 * sources) * slice_bytes(),
                                                     uint64_t{256} << 20)));
    std::vector<SliceResult> results(writer.in_flight());
    auto produce = [&](size_t wi, size_t slot, size_t index, output::OutputBuffer& out) {
        return print_slice(workers[wi], results[slot], index, out, style, writer);
    };
    auto accept = [&](size_t slot, size_t) {
        const SliceResult& res = results[slot];
        if (res.starts != at) return false;  // not contiguous with the slice before
        for (size_t f = 0; f < set_.size(); ++f)
            if (res.common[f] && common_known_[f] && !(*res.common[f] == common_[f])) return false;
        for (size_t f = 0; f < set_.size(); ++f) {
            if (!res.common[f] || common_known_[f]) continue;
            common_[f] = *res.common[f];  // the first slice with an event of the file: the serial choice
            common_known_[f] = 1;
        }
        unknown_ += res.unknown;
        at = res.ends;
        return true;
    };
    const size_t written = writer.run(plan.count(), buf, produce, accept);
    // For tests and benchmarks: how much of the trace the slices printed.
    if (std::getenv("RINGSCOPE_SLICE_STATS"))
        std::fprintf(stderr, "%s report: %zu of %zu slices\n", ctx_.program.c_str(), written, plan.count());
    for (size_t k = 0; k < at.size(); ++k) engine::seek_stream_to(merger.sources()[k].stream, at[k]);
    return std::all_of(at.begin(), at.end(), [](uint64_t a) { return a == engine::kStreamEnd; });
}

}  // namespace ringscope::cli
