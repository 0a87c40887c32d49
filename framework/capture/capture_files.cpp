#include "framework/capture/capture_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ringscope::capture {

Expected<CaptureFiles> CaptureFiles::create(const std::string& output, const std::vector<int>& cpus,
                                            uint64_t reserve_bytes, size_t buffer_index,
                                            const std::string& name) {
    CaptureFiles f;
    if (reserve_bytes) {
        f.reserve_ = output + ".reserve";
        const int fd = ::open(f.reserve_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
            return Error(Errc::io, std::string("cannot create: ") + std::strerror(errno)).in_file(f.reserve_);
        const int r = ::posix_fallocate(fd, 0, static_cast<off_t>(reserve_bytes));
        ::close(fd);
        if (r == ENOSPC)
            return Error(Errc::io, "not enough free space for the trace metadata (" +
                                       std::to_string(reserve_bytes >> 10) + " KB needed)")
                .in_file(f.reserve_);
        // Other failures (no fallocate on this file system): go on without a reserve.
        if (r != 0) {
            ::unlink(f.reserve_.c_str());
            f.reserve_.clear();
        }
    }
    for (int cpu : cpus) {
        CpuDataFile c{cpu, cpu_scratch_path(output, buffer_index, name, cpu)};
        const int fd = ::open(c.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
            return Error(Errc::io, std::string("cannot create: ") + std::strerror(errno)).in_file(c.path);
        f.files_.push_back(std::move(c));
        f.fds_.push_back(fd);
    }
    return f;
}

CaptureFiles::CaptureFiles(CaptureFiles&& o) noexcept
    : files_(std::move(o.files_)),
      fds_(std::move(o.fds_)),
      reserve_(std::move(o.reserve_)),
      extra_(std::move(o.extra_)),
      extra_fds_(std::move(o.extra_fds_)) {
    o.files_.clear();
    o.extra_.clear();
    o.extra_fds_.clear();
    o.fds_.clear();
    o.reserve_.clear();
}

Status CaptureFiles::adopt_locked(std::string path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0) {
        const int err = errno;
        if (fd >= 0) ::close(fd);
        return Error(Errc::io, std::string("cannot lock: ") + std::strerror(err)).in_file(path);
    }
    extra_.push_back(std::move(path));
    extra_fds_.push_back(fd);
    return {};
}

CaptureFiles::~CaptureFiles() {
    remove_all();
}

void CaptureFiles::close_fds() noexcept {
    for (int& fd : fds_) {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
}

void CaptureFiles::release_reserve() noexcept {
    if (!reserve_.empty()) ::unlink(reserve_.c_str());
    reserve_.clear();
}

void CaptureFiles::remove_all() noexcept {
    close_fds();
    release_reserve();
    for (const auto& c : files_) ::unlink(c.path.c_str());
    for (const auto& p : extra_) ::unlink(p.c_str());
    for (int fd : extra_fds_) ::close(fd);
    files_.clear();
    extra_.clear();
    extra_fds_.clear();
}

}  // namespace ringscope::capture
