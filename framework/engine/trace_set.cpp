#include "framework/engine/trace_set.hpp"

#include <algorithm>

#include "framework/symbols/guest_symbols.hpp"

namespace ringscope::engine {

Status TraceSet::add_file(const std::string& path, const OpenOptions& options) {
    auto f = TraceFile::open(path, options, &resolvers_);
    if (!f) return std::move(f).error();
    files_.push_back(std::move(*f));
    return Status::success();
}

size_t TraceSet::pair_guests() {
    size_t paired = 0;
    for (const auto& host : files_) {
        for (const io::GuestInfo& g : host->reader().options().guests) {
            for (const auto& guest : files_) {
                if (guest.get() == host.get()) continue;
                const auto& id = guest->reader().options().trace_id;
                if (!id || *id != g.trace_id) continue;
                auto ks = guest->own_resolvers().resolvers(kKernelDomain);
                if (ks.empty()) continue;
                std::vector<int> pids;
                pids.reserve(g.vcpus.size());
                for (const auto& v : g.vcpus) pids.push_back(static_cast<int>(v.host_pid));
                symbols::register_guest(resolvers_, g.name, pids, ks.front());
                ++paired;
            }
        }
    }
    return paired;
}

std::vector<BufferRef> TraceSet::buffer_order() const {
    std::vector<BufferRef> order;
    for (size_t f = 0; f < files_.size(); ++f) order.push_back({f, 0});
    for (size_t f = 0; f < files_.size(); ++f) {
        const auto& buffers = files_[f]->reader().buffers();
        for (size_t b = 1; b < buffers.size(); ++b)
            if (!buffers[b].latency) order.push_back({f, b});
    }
    return order;
}

Status TraceSet::build_merger(std::span<const BufferRef> buffers, std::span<const int> cpus,
                              EventMerger& merger, int threads) {
    int global_cpu = 0;
    for (const BufferRef& ref : buffers) {
        TraceFile& f = *files_[ref.file];
        auto streams = f.open_streams(ref.buffer, threads);
        if (!streams) return std::move(streams).error();
        auto add = [&](CpuStream& s) {
            MergeSource src{&f, ref.file, ref.buffer, global_cpu, std::move(s)};
            merger.add(std::move(src));
        };
        if (cpus.empty()) {
            for (auto& s : *streams) {
                add(s);
                ++global_cpu;
            }
            continue;
        }
        // --cpu: the listed ids in the given order; a repeated id adds nothing (trace-cmd peeks
        // the same CPU twice and the first entry wins every tie).
        std::vector<int> seen;
        for (int id : cpus) {
            if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
            seen.push_back(id);
            for (auto& s : *streams)
                if (s.cpu() == id) add(s);
        }
        global_cpu += static_cast<int>(streams->size());
    }
    return Status::success();
}

std::optional<uint64_t> TraceSet::first_timestamp() {
    std::optional<uint64_t> first;
    for (auto& f : files_) {
        auto streams = f->open_streams(0);
        if (!streams) continue;
        for (auto& s : *streams) {
            const Record* r = s.peek();
            if (!r) continue;
            // after the file's conversions (TSC2NSEC, a guest's TIME_SHIFT), as libtracecmd's
            // first_ts: a TSC-counting host file aligns in nanoseconds
            const uint64_t ts = r->ts;
            if (!first || ts < *first) first = ts;
        }
    }
    return first;
}

}  // namespace ringscope::engine
