#include "framework/export/deflate_stream.hpp"

#include <zlib.h>

namespace ringscope::exporter {

struct DeflateStream::Zlib {
    z_stream s{};
    bool open = false;
};

DeflateStream::DeflateStream(int level) : z_(std::make_unique<Zlib>()) {
    z_->open = deflateInit(&z_->s, level) == Z_OK;
    failed_ = !z_->open;
}

DeflateStream::~DeflateStream() {
    if (z_->open) deflateEnd(&z_->s);
}

void DeflateStream::reset() {
    out_.clear();
    if (z_->open) failed_ = deflateReset(&z_->s) != Z_OK;
}

void DeflateStream::run(std::span<const uint8_t> in, int flush) {
    if (failed_) return;
    z_stream& s = z_->s;
    s.next_in = const_cast<Bytef*>(in.data());  // zlib's API is not const-correct; it does not write
    s.avail_in = static_cast<uInt>(in.size());
    uint8_t chunk[64 * 1024];
    for (;;) {
        s.next_out = chunk;
        s.avail_out = sizeof chunk;
        const int rc = deflate(&s, flush);
        out_.insert(out_.end(), chunk, chunk + (sizeof chunk - s.avail_out));
        if (rc == Z_STREAM_END) return;
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            failed_ = true;
            return;
        }
        // Without Z_FINISH, done when the input is used up and zlib did not fill the chunk.
        if (flush != Z_FINISH && s.avail_in == 0 && s.avail_out != 0) return;
    }
}

void DeflateStream::add(std::span<const uint8_t> bytes) {
    // zlib counts in 32 bits: feed huge buffers in slices.
    constexpr size_t kSlice = size_t{1} << 30;
    for (size_t at = 0; at < bytes.size(); at += kSlice)
        run(bytes.subspan(at, std::min(kSlice, bytes.size() - at)), Z_NO_FLUSH);
}

Status DeflateStream::finish() {
    run({}, Z_FINISH);
    if (failed_) return Error(Errc::io, "zlib deflate failed");
    return Status::success();
}

}  // namespace ringscope::exporter
