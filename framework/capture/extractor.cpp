// `ringscope extract`: the buffers' current content into a trace.dat, without touching the
// tracing state (no event, size or tracing_on change).
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "framework/capture/capture_files.hpp"
#include "framework/capture/kernel_sections.hpp"
#include "framework/capture/metadata.hpp"
#include "framework/capture/recorder.hpp"
#include "framework/capture/trace_assembler.hpp"
#include "framework/capture/tracefs_admin.hpp"

namespace ringscope::capture {

namespace {

// One buffer's content into its scratch files (consumed, as trace-cmd extract does), and its
// kernel stats. The data of each CPU goes to FILES.
Status save_buffer(const tracefs::Instance& inst, const std::vector<int>& cpus, const CaptureFiles& files,
                   CaptureResult& res) {
    auto size_kb = inst.buffer_size_kb();
    if (!size_kb) return std::move(size_kb).error();
    // With tracing on, new events keep coming: read at most twice the buffer, as a snapshot.
    const uint64_t cap = std::max<uint64_t>(*size_kb * 2048, uint64_t{1} << 20);
    for (size_t i = 0; i < cpus.size(); ++i) {
        auto c = tracefs::TracefsCpu::open(inst, cpus[i], true);
        if (!c) return std::move(c).error();
        uint64_t bytes = 0;
        for (;;) {
            const int n = c->flush_write(files.fd(i));
            if (n < 0)
                return Error(Errc::io, std::string("saving CPU ") + std::to_string(cpus[i]) +
                                           " data failed: " + std::strerror(errno))
                    .in_file(files.files()[i].path)
                    .at_offset(static_cast<int64_t>(bytes));
            if (n == 0) break;
            bytes += static_cast<uint64_t>(n);
            if (bytes >= cap) break;
        }
        auto st = inst.cpu_stats(cpus[i]);
        if (!st) return std::move(st).error();
        res.cpus.push_back({inst.name(), cpus[i], bytes, std::move(*st)});
    }
    return {};
}

}  // namespace

Expected<CaptureResult> extract(const ExtractOptions& o) {
    std::string root = o.tracefs_root;
    if (root.empty()) {
        auto r = tracefs::find_tracefs();
        if (!r) return std::move(r).error();
        root = *r;
    }
    std::vector<std::string> names = o.instances;
    if (o.all) {
        auto all = instance_names(root);
        if (!all) return std::move(all).error();
        for (auto& n : *all)
            if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(std::move(n));
    }
    if ((!o.all && o.instances.empty()) || o.top) names.insert(names.begin(), "");
    std::vector<tracefs::Instance> insts;
    for (const auto& n : names) {
        auto inst = n.empty() ? tracefs::Instance::top(root) : tracefs::Instance::open(n, root);
        if (!inst) return std::move(inst).error();
        insts.push_back(std::move(*inst));
    }
    auto cpus = insts.front().cpus();
    if (!cpus) return std::move(cpus).error();
    auto meta = collect_metadata(insts.front(), nullptr, static_cast<uint32_t>(cpus->size()));
    if (!meta) return std::move(meta).error();
    std::vector<const tracefs::Instance*> ptrs;
    for (const auto& in : insts) ptrs.push_back(&in);
    add_kernel_sections(*meta, ptrs);

    CaptureResult res;
    std::vector<CaptureFiles> files;
    std::vector<BufferData> buffers;
    for (size_t b = 0; b < insts.size(); ++b) {
        const tracefs::Instance& inst = insts[b];
        auto subbuf = inst.subbuf_size();
        if (!subbuf) return std::move(subbuf).error();
        auto clock = inst.clock();
        if (!clock) return std::move(clock).error();
        auto f = CaptureFiles::create(o.output, *cpus, 0, b, inst.name());
        if (!f) return std::move(f).error();
        files.push_back(std::move(*f));
        if (Status st = save_buffer(inst, *cpus, files.back(), res); !st) return std::move(st).error();
        files.back().close_fds();
        buffers.push_back({inst.name(), *clock, *subbuf, files.back().files()});
    }
    (void)finish_metadata(*meta, insts.front(), {}, {});
    store_cpu_stats(*meta, names, res);
    AssembleSpec spec = capture_spec(o.output, o.compression, std::move(buffers));
    if (Status st = assemble_trace_dat(spec, std::move(*meta)); !st) return std::move(st).error();
    for (auto& f : files) f.remove_all();
    if (o.log) print_capture_summary(o.log, res, o.output);
    return res;
}

}  // namespace ringscope::capture
