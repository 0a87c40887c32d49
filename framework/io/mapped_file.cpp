#include "framework/io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

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

    // Pipes, character devices: read everything (they cannot be re-read at an offset).
    f->mode_ = Mode::memory;
    uint8_t buf[1 << 16];
    for (;;) {
        ssize_t r = ::read(f->fd_, buf, sizeof buf);
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno_error("cannot read", path);
        }
        if (r == 0) break;
        f->memory_.insert(f->memory_.end(), buf, buf + r);
    }
    f->size_ = f->memory_.size();
    f->data_ = f->memory_.empty() ? nullptr : f->memory_.data();
    return f;
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
