// Per-CPU trace_pipe_raw reader, with the return conventions of libtracefs's tracefs_cpu_*():
// a blocking reader waits in poll() on the data and a control pipe that stop() writes to.
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include <ringscope/tracefs.hpp>

namespace ringscope::tracefs {

namespace {

void close_fd(int& fd) noexcept {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// read() that retries on EINTR and reports "nothing there" as 0.
int read_some(int fd, void* buf, size_t n) {
    for (;;) {
        const ssize_t r = ::read(fd, buf, n);
        if (r >= 0) return static_cast<int>(r);
        if (errno == EINTR) continue;
        if (errno == EAGAIN) {
            errno = 0;
            return 0;
        }
        return -1;
    }
}

int write_all(int fd, const char* p, size_t n) {
    size_t done = 0;
    while (done < n) {
        const ssize_t w = ::write(fd, p + done, n - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        done += static_cast<size_t>(w);
    }
    return static_cast<int>(done);
}

}  // namespace

Expected<TracefsCpu> TracefsCpu::open(const Instance& instance, int cpu, bool nonblock) {
    auto size = instance.subbuf_size();
    if (!size) return std::move(size).error();
    const std::string p = instance.path("per_cpu/cpu" + std::to_string(cpu) + "/trace_pipe_raw");
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
    if (fd < 0) return Error(Errc::io, std::string("cannot open: ") + std::strerror(errno)).in_file(p);
    auto t = from_fd(fd, static_cast<int>(*size), nonblock);
    if (!t) return std::move(t).error().in_file(p);
    t->cpu_ = cpu;
    return t;
}

Expected<TracefsCpu> TracefsCpu::from_fd(int fd, int subbuf_size, bool nonblock) {
    TracefsCpu t;
    t.fd_ = fd;
    t.subbuf_size_ = subbuf_size;
    if (subbuf_size <= 0) {
        ::close(fd);
        return Error(Errc::invalid_argument, "sub-buffer size must be positive");
    }
    if (nonblock) {
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
        t.nonblock_ = true;
        t.perm_nonblock_ = true;
    } else if (::pipe2(t.ctrl_, O_CLOEXEC) != 0) {
        // t's destructor closes fd.
        return Error(Errc::io, std::string("cannot create the control pipe: ") + std::strerror(errno));
    }
    return t;
}

TracefsCpu::TracefsCpu(TracefsCpu&& o) noexcept {
    *this = std::move(o);
}

TracefsCpu& TracefsCpu::operator=(TracefsCpu&& o) noexcept {
    if (this == &o) return *this;
    close_all();
    fd_ = std::exchange(o.fd_, -1);
    cpu_ = o.cpu_;
    subbuf_size_ = o.subbuf_size_;
    for (int i = 0; i < 2; ++i) {
        ctrl_[i] = std::exchange(o.ctrl_[i], -1);
        splice_[i] = std::exchange(o.splice_[i], -1);
    }
    pipe_size_ = o.pipe_size_;
    want_pipe_size_ = o.want_pipe_size_;
    buffered_ = o.buffered_;
    scratch_ = std::move(o.scratch_);
    nonblock_ = o.nonblock_.load();
    perm_nonblock_ = o.perm_nonblock_.load();
    return *this;
}

TracefsCpu::~TracefsCpu() {
    close_all();
}

void TracefsCpu::close_all() noexcept {
    close_fd(fd_);
    close_fd(ctrl_[0]);
    close_fd(ctrl_[1]);
    close_fd(splice_[0]);
    close_fd(splice_[1]);
}

void TracefsCpu::set_nonblock(bool on) {
    if (nonblock_ == on) return;
    const int fl = ::fcntl(fd_, F_GETFL);
    ::fcntl(fd_, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
    nonblock_ = on;
}

// 1: data may be read now; 0: nothing (stopped, or non-blocking); negative: error (EINTR is
// returned to the caller, which decides what a signal means).
int TracefsCpu::wait_on_input(bool nonblock) {
    if (perm_nonblock_) return 1;
    if (nonblock) {
        set_nonblock(true);
        return 1;
    }
    set_nonblock(false);
    pollfd p[2] = {{fd_, POLLIN, 0}, {ctrl_[0], POLLIN, 0}};
    const int r = ::poll(p, 2, -1);
    if (r < 0) return -1;
    if (p[1].revents & POLLIN) {
        char c;
        (void)!::read(ctrl_[0], &c, 1);
        // Stopped: every later read is non-blocking.
        set_nonblock(true);
        perm_nonblock_ = true;
    }
    return (p[0].revents & (POLLIN | POLLHUP | POLLERR)) ? 1 : (perm_nonblock_ ? 1 : 0);
}

int TracefsCpu::init_splice() {
    if (splice_[0] >= 0) return 0;
    if (::pipe2(splice_, O_CLOEXEC) != 0) return -1;
    if (want_pipe_size_ > 0) ::fcntl(splice_[0], F_SETPIPE_SZ, want_pipe_size_);
    const int sz = ::fcntl(splice_[0], F_GETPIPE_SZ);
    pipe_size_ = sz > 0 ? sz : subbuf_size_;
    return 0;
}

int TracefsCpu::set_pipe_size(int bytes) {
    want_pipe_size_ = bytes;
    if (splice_[0] < 0) {
        if (init_splice() < 0) return -1;
        return pipe_size_;
    }
    const int r = ::fcntl(splice_[0], F_SETPIPE_SZ, bytes);
    if (r > 0) pipe_size_ = r;
    return r;
}

int TracefsCpu::read(void* buffer, bool nonblock) {
    const int w = wait_on_input(nonblock);
    if (w <= 0) return w;
    return read_some(fd_, buffer, static_cast<size_t>(subbuf_size_));
}

int TracefsCpu::buffered_read(void* buffer, bool nonblock) {
    if (buffered_ <= 0) {
        buffered_ = 0;
        const int w = wait_on_input(nonblock);
        if (w <= 0) return w;
        if (init_splice() < 0) return -1;
        const unsigned mode = SPLICE_F_MOVE | (nonblock_ ? SPLICE_F_NONBLOCK : 0u);
        const ssize_t r = ::splice(fd_, nullptr, splice_[1], nullptr, static_cast<size_t>(pipe_size_), mode);
        if (r < 0 && errno == EAGAIN) {
            errno = 0;
            return 0;
        }
        if (r <= 0) return static_cast<int>(r);
        buffered_ = static_cast<int>(r);
    }
    const int r = read_some(splice_[0], buffer, static_cast<size_t>(subbuf_size_));
    if (r > 0) buffered_ -= r;
    return r;
}

int TracefsCpu::write(int wfd, bool nonblock) {
    const int w = wait_on_input(nonblock);
    if (w <= 0) return w;
    if (init_splice() < 0) return -1;
    const unsigned mode = SPLICE_F_MOVE | (nonblock_ ? SPLICE_F_NONBLOCK : 0u);
    ssize_t tot = ::splice(fd_, nullptr, splice_[1], nullptr, static_cast<size_t>(pipe_size_), mode);
    if (tot < 0 && errno == EAGAIN) {
        errno = 0;
        return 0;
    }
    if (tot <= 0) return static_cast<int>(tot);
    // Drain the pipe completely, so that it never holds a partial sub-buffer between calls.
    int written = 0;
    bool spliceable = true;
    while (tot > 0) {
        ssize_t r = -1;
        if (spliceable) {
            r = ::splice(splice_[0], nullptr, wfd, nullptr, static_cast<size_t>(tot), SPLICE_F_MOVE);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0 && (errno == EINVAL || errno == EBADF)) {
                spliceable = false;  // some targets take no splice: copy through memory
                continue;
            }
        } else {
            scratch_.resize(static_cast<size_t>(subbuf_size_));
            const int n = read_some(splice_[0], scratch_.data(),
                                    std::min<size_t>(scratch_.size(), static_cast<size_t>(tot)));
            if (n <= 0) return n < 0 ? -1 : written;
            r = write_all(wfd, scratch_.data(), static_cast<size_t>(n));
        }
        if (r < 0) return -1;  // errno from the target (ENOSPC, EPIPE...)
        if (r == 0) break;
        tot -= r;
        written += static_cast<int>(r);
    }
    return written;
}

int TracefsCpu::pipe(int wfd, bool nonblock) {
    const int w = wait_on_input(nonblock);
    if (w <= 0) return w;
    if (init_splice() < 0) return -1;
    const unsigned mode = SPLICE_F_MOVE | (nonblock_ ? SPLICE_F_NONBLOCK : 0u);
    const ssize_t r = ::splice(fd_, nullptr, wfd, nullptr, static_cast<size_t>(pipe_size_), mode);
    if (r < 0 && errno == EAGAIN) {
        errno = 0;
        return 0;
    }
    return static_cast<int>(r);
}

int TracefsCpu::stop() {
    if (perm_nonblock_ && ctrl_[1] < 0) return 0;  // opened non-blocking: nobody waits
    const char c = 1;
    if (::write(ctrl_[1], &c, 1) < 0) return -1;
    // Recent kernels wake the ring buffer's waiters on any ioctl of trace_pipe_raw.
    const int r = ::ioctl(fd_, 0) < 0 ? 1 : 0;
    set_nonblock(true);
    return r;
}

int TracefsCpu::flush(void* buffer) {
    set_nonblock(true);
    // Bytes already spliced into the pipe come first.
    if (buffered_ > 0 && splice_[0] >= 0) {
        const int r = read_some(splice_[0], buffer, static_cast<size_t>(subbuf_size_));
        if (r > 0) {
            buffered_ -= r;
            return r;
        }
        buffered_ = 0;
    }
    return read_some(fd_, buffer, static_cast<size_t>(subbuf_size_));
}

int TracefsCpu::flush_write(int wfd) {
    scratch_.resize(static_cast<size_t>(subbuf_size_));
    const int r = flush(scratch_.data());
    if (r <= 0) return r;
    return write_all(wfd, scratch_.data(), static_cast<size_t>(r));
}

}  // namespace ringscope::tracefs
