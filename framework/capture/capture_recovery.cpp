#include "framework/capture/capture_recovery.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <ringscope/tracefs.hpp>

#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/unfinished_trace.hpp"

namespace ringscope::capture {

Status write_capture_head(AssembleSpec spec, io::TraceMetadata metadata) {
    spec.layout_only = true;
    spec.release_copied = false;
    spec.output = io::unfinished_trace_head(spec.output);
    return assemble_trace_dat(spec, std::move(metadata));
}

Expected<RecoveredCapture> recover_capture(const std::string& output) {
    const std::string head = io::unfinished_trace_head(output);
    struct stat st {};
    if (::stat(head.c_str(), &st) != 0)
        return Error(Errc::not_found, std::string("no unfinished recording: ") + std::strerror(errno))
            .in_file(head);
    // The recorder holds it while it runs: its files are not ours to assemble (or remove).
    const int lock = ::open(head.c_str(), O_RDONLY | O_CLOEXEC);
    if (lock < 0) return Error(Errc::io, std::string("cannot open: ") + std::strerror(errno)).in_file(head);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{lock};
    if (::flock(lock, LOCK_EX | LOCK_NB) != 0)
        return Error(Errc::invalid_argument, "the recording is still running (its process holds this file)")
            .in_file(head);
    auto rd = io::TraceDatReader::open(head);
    if (!rd) return std::move(rd).error();
    // The head's layout is assemble_trace_dat's: the buffers with CPUs are those recorded, after
    // an empty top buffer when the top was not.
    std::vector<BufferData> buffers;
    RecoveredCapture res;
    for (const io::BufferInfo& b : rd->buffers()) {
        if (b.cpus.empty()) continue;
        BufferData data{b.name, b.clock, b.page_size, {}};
        for (const auto& c : b.cpus) {
            const int cpu = static_cast<int>(c.cpu);
            CpuDataFile f{cpu, cpu_scratch_path(output, buffers.size(), b.name, cpu)};
            struct stat cs {};
            if (::stat(f.path.c_str(), &cs) != 0)
                return Error(Errc::io,
                             std::string("the recording's CPU data is missing: ") + std::strerror(errno))
                    .in_file(f.path);
            res.bytes += static_cast<uint64_t>(cs.st_size) / b.page_size * b.page_size;
            ++res.cpus;
            data.cpus.push_back(std::move(f));
        }
        buffers.push_back(std::move(data));
    }
    if (buffers.empty()) return Error(Errc::corrupt, "no recorded buffer in the layout").in_file(head);
    AssembleSpec spec = capture_spec(output, rd->compression(), std::move(buffers));
    spec.config.file_version = rd->file_version();
    io::TraceMetadata meta = rd->metadata();
    // The head's BTF, modules and last-boot sections, which the reader keeps apart from the metadata.
    auto sections = rd->extra_sections();
    if (!sections) return std::move(sections).error();
    meta.extra_sections = std::move(*sections);
    // The comms known now (the head was written before the recording ran).
    if (auto root = tracefs::find_tracefs(false))
        if (auto c = tracefs::read_saved_cmdlines(*root)) meta.saved_cmdlines = std::move(*c);
    if (Status st = assemble_trace_dat(spec, std::move(meta)); !st) return std::move(st).error();
    for (const auto& b : spec.buffers)
        for (const auto& f : b.cpus) ::unlink(f.path.c_str());
    ::unlink((output + ".reserve").c_str());
    ::unlink(head.c_str());
    return res;
}

}  // namespace ringscope::capture
