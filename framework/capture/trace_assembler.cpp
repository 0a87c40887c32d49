#include "framework/capture/trace_assembler.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ringscope::capture {

namespace {

constexpr size_t kBlockPages = 64;

Error file_error(const std::string& path, const char* what, int err, int64_t off = Error::kNoOffset) {
    return Error(Errc::io, std::string(what) + ": " + std::strerror(err)).in_file(path).at_offset(off);
}

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// One CPU's whole sub-buffers, copied in blocks (punched out once copied with release_copied).
Status copy_cpu(io::TraceDatWriter& writer, const AssembleSpec& spec, const CpuDataFile& c, uint32_t page,
                std::vector<uint8_t>& block) {
    if (Status st = writer.begin_cpu(); !st) return st;
    if (spec.layout_only) return writer.end_cpu();
    Fd in;
    in.fd = ::open(c.path.c_str(), O_RDWR | O_CLOEXEC);
    if (in.fd < 0) return file_error(c.path, "cannot open CPU data", errno);
    struct stat sb {};
    if (::fstat(in.fd, &sb) != 0) return file_error(c.path, "cannot stat CPU data", errno);
    const uint64_t whole = static_cast<uint64_t>(sb.st_size) / page * page;
    const uint64_t step = block.size() / page * page;
    uint64_t off = 0;
    while (off < whole) {
        const size_t want = static_cast<size_t>(std::min<uint64_t>(step, whole - off));
        size_t got = 0;
        while (got < want) {
            const ssize_t r = ::pread(in.fd, block.data() + got, want - got, static_cast<off_t>(off + got));
            if (r < 0 && errno == EINTR) continue;
            if (r < 0)
                return file_error(c.path, "cannot read CPU data", errno, static_cast<int64_t>(off + got));
            if (r == 0)
                return Error(Errc::truncated, "CPU data shrank while copying")
                    .in_file(c.path)
                    .at_offset(static_cast<int64_t>(off + got));
            got += static_cast<size_t>(r);
        }
        if (Status st = writer.write_pages({block.data(), want}); !st) return st;
        if (spec.release_copied)
            (void)::fallocate(in.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(off),
                              static_cast<off_t>(want));
        off += want;
    }
    return writer.end_cpu();
}

}  // namespace

AssembleSpec capture_spec(const std::string& output, io::Compression compression,
                          std::vector<BufferData> buffers) {
    AssembleSpec spec;
    spec.output = output;
    spec.config.compression = compression;
    spec.buffers = std::move(buffers);
    return spec;
}

std::string cpu_scratch_path(const std::string& output, size_t buffer_index, const std::string& name,
                             int cpu) {
    const std::string base = buffer_index == 0 ? output : output + "." + name;
    return base + ".cpu" + std::to_string(cpu);
}

Status assemble_trace_dat(const AssembleSpec& spec, io::TraceMetadata metadata) {
    if (spec.buffers.empty()) return Error(Errc::invalid_argument, "no buffer to write").in_file(spec.output);
    std::vector<io::BufferSpec> buffers;
    // As trace-cmd extract -B writes it: an empty top buffer, then the instances.
    if (!spec.buffers.front().name.empty())
        buffers.push_back({"", spec.buffers.front().clock, spec.buffers.front().subbuf_size, {}});
    uint32_t largest = 0;
    for (const BufferData& b : spec.buffers) {
        if (b.subbuf_size == 0 || b.subbuf_size % 8)
            return Error(Errc::invalid_argument, "bad sub-buffer size of buffer '" + b.name + "'")
                .in_file(spec.output);
        std::vector<uint32_t> ids;
        for (const auto& c : b.cpus) ids.push_back(static_cast<uint32_t>(c.cpu));
        buffers.push_back({b.name, b.clock, b.subbuf_size, std::move(ids)});
        largest = std::max(largest, b.subbuf_size);
    }
    auto w = io::TraceDatWriter::create(spec.output, spec.config, std::move(metadata), std::move(buffers));
    if (!w) return std::move(w).error();
    io::TraceDatWriter& writer = **w;

    std::vector<uint8_t> block(kBlockPages * largest);
    for (const BufferData& b : spec.buffers)
        for (const auto& c : b.cpus)
            if (Status st = copy_cpu(writer, spec, c, b.subbuf_size, block); !st) return st;
    return writer.finish();
}

}  // namespace ringscope::capture
