#include "framework/capture/trace_assembler.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

}  // namespace

AssembleSpec capture_spec(const std::string& output, io::Compression compression, const std::string& buffer,
                          const std::string& clock, uint32_t subbuf_size, std::vector<CpuDataFile> cpus) {
    AssembleSpec spec;
    spec.output = output;
    spec.config.compression = compression;
    spec.buffer_name = buffer;
    spec.clock = clock;
    spec.subbuf_size = subbuf_size;
    spec.cpus = std::move(cpus);
    return spec;
}

Status assemble_trace_dat(const AssembleSpec& spec, io::TraceMetadata metadata) {
    const uint32_t page = spec.subbuf_size;
    if (page == 0 || page % 8)
        return Error(Errc::invalid_argument, "bad sub-buffer size").in_file(spec.output);
    std::vector<io::BufferSpec> buffers;
    std::vector<uint32_t> ids;
    for (const auto& c : spec.cpus) ids.push_back(static_cast<uint32_t>(c.cpu));
    if (spec.buffer_name.empty()) {
        buffers.push_back({"", spec.clock, page, ids});
    } else {
        // As trace-cmd extract -B writes it: an empty top buffer, then the instance.
        buffers.push_back({"", spec.clock, page, {}});
        buffers.push_back({spec.buffer_name, spec.clock, page, ids});
    }
    auto w = io::TraceDatWriter::create(spec.output, spec.config, std::move(metadata), std::move(buffers));
    if (!w) return std::move(w).error();
    io::TraceDatWriter& writer = **w;

    std::vector<uint8_t> block(kBlockPages * page);
    for (const auto& c : spec.cpus) {
        if (Status st = writer.begin_cpu(); !st) return st;
        if (spec.layout_only) {
            if (Status st = writer.end_cpu(); !st) return st;
            continue;
        }
        Fd in;
        in.fd = ::open(c.path.c_str(), O_RDWR | O_CLOEXEC);
        if (in.fd < 0) return file_error(c.path, "cannot open CPU data", errno);
        struct stat sb {};
        if (::fstat(in.fd, &sb) != 0) return file_error(c.path, "cannot stat CPU data", errno);
        const uint64_t whole = static_cast<uint64_t>(sb.st_size) / page * page;
        uint64_t off = 0;
        while (off < whole) {
            const size_t want = static_cast<size_t>(std::min<uint64_t>(block.size(), whole - off));
            size_t got = 0;
            while (got < want) {
                const ssize_t r =
                    ::pread(in.fd, block.data() + got, want - got, static_cast<off_t>(off + got));
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
        if (Status st = writer.end_cpu(); !st) return st;
    }
    return writer.finish();
}

}  // namespace ringscope::capture
