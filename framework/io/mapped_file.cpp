#include "framework/io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

namespace ringscope::io {

namespace {

Error errno_error(const std::string& what, const std::string& path) {
    return Error(Errc::io, what + ": " + std::strerror(errno)).in_file(path);
}

}  // namespace

Expected<std::shared_ptr<MappedFile>> MappedFile::open(const std::string& path, bool allow_mmap) {
    std::shared_ptr<MappedFile> f(new MappedFile());
    f->path_ = path;
    f->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f->fd_ < 0) return errno_error("cannot open", path);
    struct stat st {};
    if (fstat(f->fd_, &st) != 0) return errno_error("cannot stat", path);

    if (S_ISREG(st.st_mode)) {
        f->size_ = static_cast<uint64_t>(st.st_size);
        if (f->size_ == 0) {
            f->mode_ = Mode::memory;
            return f;
        }
        void* p = allow_mmap ? mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, f->fd_, 0) : MAP_FAILED;
        if (p != MAP_FAILED) {
            f->data_ = static_cast<const uint8_t*>(p);
            f->mode_ = Mode::mapped;
        } else {
            // Some filesystems cannot mmap; positioned reads still work.
            f->mode_ = Mode::pread;
        }
        return f;
    }

    if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
        return Error(Errc::io, "not a regular file or a pipe").at_offset(0).in_file(path);
    // A pipe cannot be read twice: its bytes are kept, and a second open of it gets them.
    static std::mutex pipes_mutex;
    static std::map<std::pair<dev_t, ino_t>, std::shared_ptr<MappedFile>> pipes;
    std::lock_guard lock(pipes_mutex);
    const auto key = std::make_pair(st.st_dev, st.st_ino);
    if (auto it = pipes.find(key); it != pipes.end()) return it->second;
    if (Status read = f->read_all(); !read) return std::move(read).error();
    pipes.emplace(key, f);
    return f;
}

Status MappedFile::read_all() {
    mode_ = Mode::memory;
    uint8_t buf[1 << 16];
    for (;;) {
        ssize_t r = ::read(fd_, buf, sizeof buf);
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno_error("cannot read", path_).at_offset(static_cast<int64_t>(memory_.size()));
        }
        if (r == 0) break;
        const auto at = static_cast<int64_t>(memory_.size());
        if (memory_.size() + static_cast<size_t>(r) > kMaxPipeBytes) {
            return Error(Errc::io, "more than " + std::to_string(kMaxPipeBytes >> 30) +
                                       " GiB from a pipe; give a file instead")
                .at_offset(at)
                .in_file(path_);
        }
        try {
            memory_.insert(memory_.end(), buf, buf + r);
        } catch (const std::bad_alloc&) {
            return Error(Errc::io, "out of memory holding the piped input").at_offset(at).in_file(path_);
        }
    }
    size_ = memory_.size();
    data_ = memory_.empty() ? nullptr : memory_.data();
    return {};
}

std::shared_ptr<MappedFile> MappedFile::from_bytes(std::vector<uint8_t> bytes, std::string name) {
    std::shared_ptr<MappedFile> f(new MappedFile());
    f->path_ = std::move(name);
    f->memory_ = std::move(bytes);
    f->size_ = f->memory_.size();
    f->data_ = f->memory_.empty() ? nullptr : f->memory_.data();
    f->mode_ = Mode::memory;
    return f;
}

MappedFile::~MappedFile() {
    if (mode_ == Mode::mapped && data_) munmap(const_cast<uint8_t*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
}

Status MappedFile::check_range(uint64_t offset, size_t len) const {
    if (offset <= size_ && len <= size_ - offset) return {};
    return Error(Errc::truncated, "read of " + std::to_string(len) +
                                      " bytes past the end of the file (size " + std::to_string(size_) + ")")
        .at_offset(static_cast<int64_t>(offset))
        .in_file(path_);
}

Expected<std::span<const uint8_t>> MappedFile::read(uint64_t offset, size_t len,
                                                    std::vector<uint8_t>& scratch) const {
    if (Status st = check_range(offset, len); !st) return std::move(st).error();
    if (mode_ != Mode::pread) {
        if (len == 0) return std::span<const uint8_t>();
        return std::span<const uint8_t>(data_ + offset, len);
    }
    scratch.resize(len);
    if (Status st = copy(offset, len, scratch.data()); !st) return std::move(st).error();
    return std::span<const uint8_t>(scratch.data(), len);
}

Status MappedFile::copy(uint64_t offset, size_t len, uint8_t* dst) const {
    if (Status st = check_range(offset, len); !st) return st;
    if (mode_ == Mode::memory) {
        if (len) std::memcpy(dst, data_ + offset, len);
        return {};
    }
    size_t done = 0;
    while (done < len) {
        ssize_t r = ::pread(fd_, dst + done, len - done, static_cast<off_t>(offset + done));
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno_error("cannot read", path_).at_offset(static_cast<int64_t>(offset + done));
        }
        if (r == 0) {
            return Error(Errc::truncated, "file shrank while reading")
                .at_offset(static_cast<int64_t>(offset + done))
                .in_file(path_);
        }
        done += static_cast<size_t>(r);
    }
    return {};
}

}  // namespace ringscope::io
