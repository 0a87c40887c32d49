// Several opened trace files read together, as `trace-cmd report -i A -i B` reads them: one shared
// resolver service (plugins, --guest-symbols, host -> guest pairs), and the merge order libtracecmd
// uses: the top buffers of the files in command-line order, then the instances of each file.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <ringscope/error.hpp>

#include "framework/engine/event_merger.hpp"
#include "framework/engine/trace_file.hpp"
#include "framework/symbols/resolver_registry.hpp"

namespace ringscope::engine {

// One buffer of one file: what a merged record comes from (trace-cmd's "handle").
struct BufferRef {
    size_t file = 0;
    size_t buffer = 0;  // 0 = top buffer
};

class TraceSet {
  public:
    TraceSet() = default;
    TraceSet(const TraceSet&) = delete;
    TraceSet& operator=(const TraceSet&) = delete;

    symbols::ResolverRegistry& resolvers() noexcept { return resolvers_; }

    // Opens one more file (its events' context layers its own kallsyms over the shared service).
    Status add_file(const std::string& path, const OpenOptions& options);
    size_t size() const noexcept { return files_.size(); }
    TraceFile& file(size_t i) noexcept { return *files_[i]; }
    const TraceFile& file(size_t i) const noexcept { return *files_[i]; }

    // Host + guest recordings (trace-cmd record -A): for each GUEST option of a file whose trace id
    // is another file's TRACEID, that file's kallsyms become the guest's domain and the domains of
    // its vCPU threads. Returns how many guests were paired.
    size_t pair_guests();

    // libtracecmd's handle order: every file's top buffer, then the instances of each file.
    std::vector<BufferRef> buffer_order() const;

    // The merge sources of the given buffers. `cpus` empty: every CPU in file order; else those CPU
    // ids in the given order (ties between equal timestamps go to the earlier one, as trace-cmd's
    // --cpu list). `global_cpu` counts CPUs across the buffers in that order. THREADS: as
    // TraceFile::open_streams.
    Status build_merger(std::span<const BufferRef> buffers, std::span<const int> cpus, EventMerger& merger,
                        int threads = 1);

    // The smallest first timestamp of the top buffers, as --align-ts takes it (the first record of
    // each CPU, after the file's clock conversions and offset); nullopt when all are empty.
    std::optional<uint64_t> first_timestamp();

  private:
    symbols::ResolverRegistry resolvers_;
    std::vector<std::unique_ptr<TraceFile>> files_;
};

}  // namespace ringscope::engine
