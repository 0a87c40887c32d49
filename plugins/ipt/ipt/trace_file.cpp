#include "ipt/trace_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipt/mapped_guard.hpp"

namespace ringscope::ipt {
namespace {

constexpr size_t kHugePage = 2u << 20;

uint8_t* allocate(size_t size) {
    // At least one block so that begin() is never null for an empty range.
    size_t bytes = ((size + 63) / 64) * 64 + 64;
    if (size < 4 * kHugePage) return static_cast<uint8_t*>(std::aligned_alloc(64, bytes));
    // A large trace in huge pages where the kernel gives them on request: the PSB search and the
    // packet decode read at memory speed, and in 4 KiB pages part of that goes to page walks.
    bytes = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(kHugePage, bytes));
    if (p) madvise(p, bytes, MADV_HUGEPAGE);  // a hint: without it the pages stay small
    return p;
}

// A pipe, /dev/stdin or a device is read once, front to back, up to this much.
constexpr uint64_t kMaxStreamBytes = uint64_t{1} << 30;

struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
};

// The end of [offset, offset + size) (size 0: to the end) in a file of total bytes, or the error.
Expected<uint64_t> range_end(const std::string& path, uint64_t total, uint64_t offset, uint64_t size) {
    // An empty file is an empty trace; any other offset must be inside the file.
    if (total < offset || (total == offset && offset != 0))
        return Error(Errc::invalid_argument, "offset past the end of the file")
            .in_file(path)
            .at_offset(static_cast<int64_t>(offset));
    if (!size) return total;
    if (total - offset < size)
        return Error(Errc::invalid_argument, "range past the end of the file")
            .in_file(path)
            .at_offset(static_cast<int64_t>(offset + size));
    return offset + size;
}

}  // namespace

struct TraceBytes::Mapping {
    int fd = -1;
    void* base = nullptr;
    size_t length = 0;
    uint64_t offset = 0;  // of begin() in the file
    std::string path;
    int guard = -1;  // its MappedGuard slot
};

void TraceBytes::Unmap::operator()(Mapping* m) const noexcept {
    MappedGuard::remove(m->guard);
    if (m->base) munmap(m->base, m->length);
    if (m->fd >= 0) close(m->fd);
    delete m;
}

int TraceBytes::fd() const noexcept {
    return map_ ? map_->fd : -1;
}

const std::string& TraceBytes::path() const noexcept {
    static const std::string none;
    return map_ ? map_->path : none;
}

uint64_t TraceBytes::file_offset() const noexcept {
    return map_ ? map_->offset : 0;
}

Expected<TraceBytes> TraceBytes::load_stream(std::FILE* f, const std::string& path, uint64_t offset,
                                             uint64_t size) {
    const uint64_t want = size ? size : kMaxStreamBytes + 1;
    if (offset > kMaxStreamBytes || want > kMaxStreamBytes + 1)
        return Error(Errc::invalid_argument, "range past what is read from a stream (1 GiB)").in_file(path);
    // Grown by doubling with realloc (a failure is an error, not an exception), then copied into
    // the aligned buffer.
    struct Plain {
        uint8_t* p = nullptr;
        ~Plain() { std::free(p); }
    } buf;
    size_t used = 0, capacity = 0;
    uint64_t skipped = 0;
    uint8_t chunk[65536];
    while (used < want) {
        size_t n = std::fread(chunk, 1, sizeof chunk, f);
        if (n == 0) break;
        size_t from = 0;
        if (skipped < offset) {
            from = static_cast<size_t>(std::min<uint64_t>(n, offset - skipped));
            skipped += from;
        }
        const size_t take = static_cast<size_t>(std::min<uint64_t>(n - from, want - used));
        if (used + take > capacity) {
            size_t grown = std::max(capacity * 2, used + take);
            auto* p = static_cast<uint8_t*>(std::realloc(buf.p, grown));
            if (!p) return Error(Errc::io, "out of memory").in_file(path);
            buf.p = p;
            capacity = grown;
        }
        if (take) std::memcpy(buf.p + used, chunk + from, take);
        used += take;
    }
    if (std::ferror(f))
        return Error(Errc::io, "cannot read: " + std::string(std::strerror(errno))).in_file(path);
    if (used > kMaxStreamBytes)
        return Error(Errc::invalid_argument, "more than 1 GiB from a stream").in_file(path);
    if (skipped < offset)
        return Error(Errc::invalid_argument, "offset past the end of the stream")
            .in_file(path)
            .at_offset(static_cast<int64_t>(offset));
    if (size && used < size)
        return Error(Errc::invalid_argument, "range past the end of the stream")
            .in_file(path)
            .at_offset(static_cast<int64_t>(offset + size));
    TraceBytes t;
    t.data_.reset(allocate(used));
    if (!t.data_) return Error(Errc::io, "out of memory").in_file(path);
    if (used) std::memcpy(t.data_.get(), buf.p, used);
    t.begin_ = t.data_.get();
    t.size_ = used;
    return t;
}

void TraceBytes::Free::operator()(uint8_t* p) const noexcept {
    std::free(p);
}

TraceBytes TraceBytes::copy(const uint8_t* data, size_t size) {
    TraceBytes t;
    t.data_.reset(allocate(size));
    if (size) std::memcpy(t.data_.get(), data, size);
    t.begin_ = t.data_.get();
    t.size_ = size;
    return t;
}

Expected<TraceBytes> TraceBytes::load(const std::string& path, uint64_t offset, uint64_t size) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return Error(Errc::io, "cannot open: " + std::string(std::strerror(errno))).in_file(path);
    Closer closer{f};
    struct stat st;
    if (fstat(fileno(f), &st) != 0)
        return Error(Errc::io, "cannot stat: " + std::string(std::strerror(errno))).in_file(path);
    if (!S_ISREG(st.st_mode)) return load_stream(f, path, offset, size);
    if (std::fseek(f, 0, SEEK_END) != 0)
        return Error(Errc::io, "cannot seek: " + std::string(std::strerror(errno))).in_file(path);
    long fsize = std::ftell(f);
    if (fsize < 0)
        return Error(Errc::io, "cannot tell size: " + std::string(std::strerror(errno))).in_file(path);
    auto end = range_end(path, static_cast<uint64_t>(fsize), offset, size);
    if (!end) return std::move(end).error();
    TraceBytes t;
    t.size_ = static_cast<size_t>(*end - offset);
    t.data_.reset(allocate(t.size_));
    if (!t.data_) return Error(Errc::io, "out of memory").in_file(path);
    t.begin_ = t.data_.get();
    if (std::fseek(f, static_cast<long>(offset), SEEK_SET) != 0 ||
        std::fread(t.data_.get(), 1, t.size_, f) != t.size_)
        return Error(Errc::io, "cannot read: " + std::string(std::strerror(errno))).in_file(path);
    return t;
}

Expected<TraceBytes> TraceBytes::map(const std::string& path, uint64_t offset, uint64_t size) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error(Errc::io, "cannot open: " + std::string(std::strerror(errno))).in_file(path);
    std::unique_ptr<Mapping, Unmap> m(new Mapping{.fd = fd, .offset = offset, .path = path});
    struct stat st;
    if (fstat(fd, &st) != 0)
        return Error(Errc::io, "cannot stat: " + std::string(std::strerror(errno))).in_file(path);
    if (!S_ISREG(st.st_mode)) {
        // Read from this descriptor: opening a pipe again could meet another writer or none.
        std::FILE* f = fdopen(fd, "rb");
        if (!f) return Error(Errc::io, "cannot read: " + std::string(std::strerror(errno))).in_file(path);
        m->fd = -1;
        Closer closer{f};
        return load_stream(f, path, offset, size);
    }
    if (offset % 64 != 0) return load(path, offset, size);
    auto end = range_end(path, static_cast<uint64_t>(st.st_size), offset, size);
    if (!end) return std::move(end).error();
    if (*end == offset) return load(path, offset, size);
    const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t from = offset / page * page;
    m->length = static_cast<size_t>(*end - from);
    void* p = mmap(nullptr, m->length, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(from));
    if (p == MAP_FAILED) return load(path, offset, size);  // a file system that cannot map
    m->base = p;
    m->guard = MappedGuard::add(p, m->length, from, path);
    // Small pages: PagesBehind gives back what the decoder passed at 1 MiB steps, which a 2 MiB
    // page of the file's cache mapped whole would keep (ipt dump on 8 MiB: 11.3 MB peak, now 10.4).
    madvise(p, m->length, MADV_NOHUGEPAGE);
    TraceBytes t;
    t.begin_ = static_cast<const uint8_t*>(p) + (offset - from);
    t.size_ = static_cast<size_t>(*end - offset);
    t.map_ = std::move(m);
    return t;
}

}  // namespace ringscope::ipt
