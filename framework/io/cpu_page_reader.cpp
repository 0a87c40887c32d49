#include "framework/io/cpu_page_reader.hpp"

#include <algorithm>
#include <cstring>

namespace ringscope::io {

namespace {
// Mapped file pages this reader has read are dropped from its RSS once they span this much
// (the page cache keeps them; a later access just faults them back in).
constexpr uint64_t kReleaseWindow = 8ull << 20;
// Mapped ahead of an uncompressed walk in one call (well inside the release window).
constexpr uint64_t kPopulateWindow = 1ull << 20;
}  // namespace

void CpuPageReader::touched(uint64_t offset, uint64_t len) noexcept {
    touched_lo_ = std::min(touched_lo_, offset);
    touched_hi_ = std::max(touched_hi_, offset + len);
    if (touched_hi_ - touched_lo_ < kReleaseWindow) return;
    file_->release(touched_lo_, touched_hi_ - touched_lo_);
    touched_lo_ = UINT64_MAX;
    touched_hi_ = 0;
}

CpuPageReader::~CpuPageReader() = default;

Expected<std::span<const uint8_t>> CpuPageReader::next() {
    if (position_ >= page_count_) return std::span<const uint8_t>();
    auto p = load(position_);
    if (p) ++position_;
    return p;
}

Expected<std::span<const uint8_t>> CpuPageReader::page(uint64_t index) {
    if (index >= page_count_) {
        return Error(Errc::invalid_argument, "CPU " + std::to_string(cpu_) + ": page " +
                                                 std::to_string(index) + " out of range (" +
                                                 std::to_string(page_count_) + " pages)")
            .in_file(file_->path());
    }
    return load(index);
}

Status CpuPageReader::load_chunk(size_t ci) {
    const Chunk& ch = chunks_[ci];
    auto z = file_->read(ch.file_offset + 8, ch.zsize, zbuf_);
    if (!z) return Error(std::move(z).error()).in_file(file_->path());
    // A failed chunk must not stay "current" with half-written contents.
    current_chunk_ = SIZE_MAX;
    chunk_buf_.resize(ch.size);
    if (auto st = decompressor_->decompress(*z, chunk_buf_); !st) {
        return Error(Errc::decompress, "CPU " + std::to_string(cpu_) + ": chunk " + std::to_string(ci) +
                                           " does not decompress: " + st.error().message())
            .at_offset(static_cast<int64_t>(ch.file_offset))
            .in_file(file_->path());
    }
    ++decompressions_;
    current_chunk_ = ci;
    // The compressed bytes are not needed again soon: keep RSS to the decompressed chunk.
    touched(ch.file_offset, 8 + uint64_t(ch.zsize));
    return {};
}

Expected<std::span<const uint8_t>> CpuPageReader::load(uint64_t index) {
    const uint64_t begin = index * page_size_;
    const uint64_t avail = std::min<uint64_t>(page_size_, data_size_ - begin);

    if (compression_ == Compression::none) {
        if (avail == page_size_ && file_->mode() != MappedFile::Mode::pread) {
            const uint64_t at = data_offset_ + begin;
            if (at >= populated_hi_) {
                // Forward walks map the next window at once instead of faulting it in page by page.
                populated_lo_ = at;
                populated_hi_ = at + std::min(data_offset_ + data_size_ - at, kPopulateWindow);
                file_->populate(populated_lo_, populated_hi_ - populated_lo_);
            } else if (at < populated_lo_) {
                // Backward walks: the window that ends with this page.
                populated_hi_ = at + page_size_;
                populated_lo_ = populated_hi_ - std::min(populated_hi_ - data_offset_, kPopulateWindow);
                file_->populate(populated_lo_, populated_hi_ - populated_lo_);
            }
            touched(at, page_size_);
            return file_->bytes().subspan(data_offset_ + begin, page_size_);
        }
        // pread mode or a short last page: copy and zero-pad.
        std::vector<uint8_t> scratch;
        auto b = file_->read(data_offset_ + begin, static_cast<size_t>(avail), scratch);
        if (!b) return Error(std::move(b).error()).in_file(file_->path());
        page_buf_.assign(page_size_, 0);
        std::memcpy(page_buf_.data(), b->data(), b->size());
        return std::span<const uint8_t>(page_buf_);
    }

    // The chunk whose uncompressed range holds BEGIN.
    auto it = std::upper_bound(chunks_.begin(), chunks_.end(), begin,
                               [](uint64_t v, const Chunk& c) { return v < c.data_begin; });
    size_t ci = static_cast<size_t>(it - chunks_.begin()) - 1;
    // Skip empty chunks that share a start with the next one.
    while (ci + 1 < chunks_.size() && chunks_[ci].size == 0) ++ci;
    if (ci != current_chunk_) {
        if (auto st = load_chunk(ci); !st) return std::move(st).error();
    }
    const Chunk& ch = chunks_[ci];
    const uint64_t in = begin - ch.data_begin;
    if (in + page_size_ <= ch.size) return std::span<const uint8_t>(chunk_buf_.data() + in, page_size_);
    // Only the last chunk may end inside a page (checked when the chunks were listed).
    page_buf_.assign(page_size_, 0);
    std::memcpy(page_buf_.data(), chunk_buf_.data() + in, static_cast<size_t>(ch.size - in));
    return std::span<const uint8_t>(page_buf_);
}

}  // namespace ringscope::io
