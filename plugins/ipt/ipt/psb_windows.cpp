#include "ipt/psb_windows.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "ipt/packet.hpp"
#include "ipt/psb_search.hpp"

namespace ringscope::ipt {
namespace {

uint64_t round_up(uint64_t n, uint64_t to) {
    return (n + to - 1) / to * to;
}

}  // namespace

void StreamWindow::Free::operator()(uint8_t* p) const noexcept {
    std::free(p);
}

StreamWindow::Fd::~Fd() {
    if (fd >= 0) ::close(fd);
}

Expected<StreamWindow> StreamWindow::open(const std::string& path, uint64_t window_bytes) {
    StreamWindow w;
    w.path_ = path;
    w.fd_ = std::make_unique<Fd>();
    w.fd_->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (w.fd_->fd < 0)
        return Error(Errc::io, "cannot open: " + std::string(std::strerror(errno))).in_file(path);
    w.cap_ = static_cast<size_t>(round_up(std::max(window_bytes, kMinBytes), 64));
    w.data_.reset(static_cast<uint8_t*>(std::aligned_alloc(64, w.cap_)));
    if (!w.data_) return Error(Errc::io, "out of memory").in_file(path);
    if (Status s = w.fill(); !s) return s.error();
    return w;
}

Status StreamWindow::fill() {
    while (!eof_ && size_ < cap_) {
        ssize_t n = ::read(fd_->fd, data_.get() + size_, cap_ - size_);
        if (n < 0) {
            if (errno == EINTR) continue;
            return Error(Errc::io, "cannot read: " + std::string(std::strerror(errno)))
                .in_file(path_)
                .at_offset(static_cast<int64_t>(base_ + size_));
        }
        if (n == 0) eof_ = true;
        size_ += static_cast<size_t>(n);
    }
    return Status::success();
}

Status StreamWindow::advance(uint64_t keep) {
    const auto shift = static_cast<size_t>(keep - base_);
    std::memmove(data_.get(), data_.get() + shift, size_ - shift);
    size_ -= shift;
    base_ = keep;
    return fill();
}

Status StreamWindow::grow() {
    const size_t cap = cap_ * 2;
    std::unique_ptr<uint8_t, Free> data(static_cast<uint8_t*>(std::aligned_alloc(64, cap)));
    if (!data) return Error(Errc::io, "out of memory").in_file(path_);
    std::memcpy(data.get(), data_.get(), size_);
    data_ = std::move(data);
    cap_ = cap;
    return fill();
}

std::vector<uint64_t> window_cuts(const Config& window, bool last, uint64_t at, uint64_t part_bytes) {
    const auto size = static_cast<uint64_t>(window.end - window.begin);
    uint64_t stop = size;
    if (!last) {
        const uint64_t margin = StreamWindow::kMargin + kPsbSize;
        const uint8_t* psb = nullptr;
        if (size <= margin || psb_before(&psb, window.begin + (size - margin), window) < 0) return {};
        stop = static_cast<uint64_t>(psb - window.begin);
    }
    if (stop <= at) return {};
    std::vector<uint64_t> cuts{at};
    if (part_bytes == 0) part_bytes = 1;
    for (uint64_t a = at; stop - a > part_bytes;) {
        const uint8_t* sync = nullptr;
        if (sync_forward(&sync, window.begin + a + part_bytes, window, true) < 0) break;
        a = static_cast<uint64_t>(sync - window.begin);
        if (a >= stop) break;
        cuts.push_back(a);
    }
    cuts.push_back(stop);
    return cuts;
}

Expected<bool> find_first_psb(StreamWindow& in, const Config& config, uint64_t& first) {
    for (;;) {
        Config c = config;
        c.begin = in.data();
        c.end = in.data() + in.size();
        PacketDecoder decoder(c);
        uint64_t at = 0;
        if (decoder.sync_forward() == 0 && decoder.get_sync_offset(at) == 0 &&
            (in.last() || at + kPsbSize + StreamWindow::kMargin <= in.size())) {
            first = in.base() + at;
            return true;
        }
        if (in.last()) return false;
        // A PSB too near the end is looked for again from well before it.
        const uint64_t keep = (in.base() + in.size() - 2 * StreamWindow::kMargin) / 64 * 64;
        if (Status s = keep > in.base() ? in.advance(keep) : in.grow(); !s) return s.error();
    }
}

}  // namespace ringscope::ipt
