// `ringscope extract`: the buffers' current content into a trace.dat, without touching the
// tracing state (no event, size or tracing_on change).
#include <cerrno>
#include <cstring>

#include "framework/capture/capture_files.hpp"
#include "framework/capture/kernel_sections.hpp"
#include "framework/capture/metadata.hpp"
#include "framework/capture/recorder.hpp"
#include "framework/capture/trace_assembler.hpp"

namespace ringscope::capture {

Expected<CaptureResult> extract(const ExtractOptions& o) {
    std::string root = o.tracefs_root;
    if (root.empty()) {
        auto r = tracefs::find_tracefs();
        if (!r) return std::move(r).error();
        root = *r;
    }
    auto inst = o.instance.empty() ? tracefs::Instance::top(root) : tracefs::Instance::open(o.instance, root);
    if (!inst) return std::move(inst).error();
    auto cpus = inst->cpus();
    if (!cpus) return std::move(cpus).error();
    auto subbuf = inst->subbuf_size();
    if (!subbuf) return std::move(subbuf).error();
    auto clock = inst->clock();
    if (!clock) return std::move(clock).error();
    auto size_kb = inst->buffer_size_kb();
    if (!size_kb) return std::move(size_kb).error();
    auto meta = collect_metadata(*inst, nullptr, static_cast<uint32_t>(cpus->size()));
    if (!meta) return std::move(meta).error();
    add_kernel_sections(*meta, {&*inst});
    auto files = CaptureFiles::create(o.output, *cpus, 0);
    if (!files) return std::move(files).error();

    CaptureResult res;
    // With tracing on, new events keep coming: read at most twice the buffer, as a snapshot.
    const uint64_t cap = std::max<uint64_t>(*size_kb * 2048, uint64_t{1} << 20);
    for (size_t i = 0; i < cpus->size(); ++i) {
        auto c = tracefs::TracefsCpu::open(*inst, (*cpus)[i], true);
        if (!c) return std::move(c).error();
        uint64_t bytes = 0;
        for (;;) {
            const int n = c->flush_write(files->fd(i));
            if (n < 0)
                return Error(Errc::io, std::string("saving CPU ") + std::to_string((*cpus)[i]) +
                                           " data failed: " + std::strerror(errno))
                    .in_file(files->files()[i].path)
                    .at_offset(static_cast<int64_t>(bytes));
            if (n == 0) break;
            bytes += static_cast<uint64_t>(n);
            if (bytes >= cap) break;
        }
        res.cpus.push_back({o.instance, (*cpus)[i], bytes, {}});
    }
    std::vector<tracefs::CpuStats> stats;
    for (auto& c : res.cpus) {
        auto s = inst->cpu_stats(c.cpu);
        if (!s) return std::move(s).error();
        c.stats = *s;
        stats.push_back(std::move(*s));
    }
    (void)finish_metadata(*meta, *inst, *cpus, stats);
    files->close_fds();
    AssembleSpec spec =
        capture_spec(o.output, o.compression, {{o.instance, *clock, *subbuf, files->files()}});
    if (Status st = assemble_trace_dat(spec, std::move(*meta)); !st) return std::move(st).error();
    files->remove_all();
    if (o.log) print_capture_summary(o.log, res, o.output);
    return res;
}

}  // namespace ringscope::capture
