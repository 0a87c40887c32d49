#include "framework/io/cpu_page_reader.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>

namespace ringscope::io {

// The next chunk of a forward walk, decompressed by a task on another thread. The reader that
// needs the chunk before the task has started runs it itself, so a dropped task costs nothing.
struct CpuPageReader::Ahead {
    enum class State : uint8_t { idle, queued, running, done };

    std::mutex mu;
    std::condition_variable cv;
    State state = State::idle;
    size_t chunk = 0;  // which chunk, once queued
    Chunk desc{};
    Status status;
    std::vector<uint8_t> buf, zbuf;
    std::unique_ptr<Decompressor> dec;
    std::shared_ptr<const MappedFile> file;
    uint32_t cpu = 0;

    // Decompresses the queued chunk; false when it was not queued (taken back or done already).
    bool run() {
        std::unique_lock lock(mu);
        if (state != State::queued) return false;
        state = State::running;
        const size_t ci = chunk;
        const Chunk ch = desc;
        lock.unlock();
        Status st = decompress_chunk(*file, cpu, ci, ch, *dec, zbuf, buf);
        lock.lock();
        status = std::move(st);
        state = State::done;
        lock.unlock();
        cv.notify_all();
        return true;
    }
};

CpuPageReader::~CpuPageReader() = default;

CpuPageReader CpuPageReader::clone() const {
    CpuPageReader r;
    r.file_ = file_;
    r.compression_ = compression_;
    if (compression_ != Compression::none) r.decompressor_ = Decompressor::create(compression_);
    r.cpu_ = cpu_;
    r.page_size_ = page_size_;
    r.data_offset_ = data_offset_;
    r.data_size_ = data_size_;
    r.page_count_ = page_count_;
    r.chunks_ = chunks_;
    r.chunk_buf_.reserve(chunk_buf_.capacity());
    r.shared_ = shared_;
    return r;
}

void CpuPageReader::publish_current_chunk() const {
    if (shared_ && current_chunk_ != SIZE_MAX) shared_->put(current_chunk_, chunk_buf_);
}

CpuPageReader::AheadSlots& CpuPageReader::AheadSlots::operator=(AheadSlots&& o) noexcept {
    if (this != &o) {
        cancel();
        slots = std::move(o.slots);
        o.slots.clear();
    }
    return *this;
}

CpuPageReader::AheadSlots::~AheadSlots() {
    cancel();
}

// A task dropped by its runner must not leave its chunk marked as coming.
void CpuPageReader::AheadSlots::cancel() noexcept {
    for (const auto& a : slots) {
        std::lock_guard lock(a->mu);
        if (a->state == Ahead::State::queued) a->state = Ahead::State::idle;
    }
}

void CpuPageReader::decompress_ahead(std::shared_ptr<TaskRunner> runner) {
    ahead_ = AheadSlots();
    runner_ = compression_ == Compression::none ? nullptr : std::move(runner);
    if (!runner_) return;
    for (size_t i = 0; i < kAheadChunks; ++i) {
        auto a = std::make_shared<Ahead>();
        a->dec = Decompressor::create(compression_);
        a->file = file_;
        a->cpu = cpu_;
        ahead_.slots.push_back(std::move(a));
    }
}

void CpuPageReader::post_ahead(size_t after) {
    size_t next = after;
    for (size_t k = 0; k < kAheadChunks; ++k) {
        ++next;
        while (next < chunks_.size() && chunks_[next].size == 0) ++next;
        if (next >= chunks_.size()) return;
        // chunk N always goes to slot N % kAheadChunks; a slot busy with another chunk is left alone
        Ahead& a = *ahead_.slots[next % kAheadChunks];
        std::unique_lock lock(a.mu);
        switch (a.state) {
            case Ahead::State::running:
                continue;
            case Ahead::State::queued:
                a.chunk = next;  // not started: it takes this chunk instead
                a.desc = chunks_[next];
                continue;
            case Ahead::State::done:
                if (a.chunk == next) continue;
                ++decompressions_;  // decompressed and not used (the walk moved elsewhere)
                [[fallthrough]];
            case Ahead::State::idle:
                break;
        }
        a.state = Ahead::State::queued;
        a.chunk = next;
        a.desc = chunks_[next];
        lock.unlock();
        if (!runner_->post([p = ahead_.slots[next % kAheadChunks]] { p->run(); })) {
            lock.lock();
            if (a.state == Ahead::State::queued) a.state = Ahead::State::idle;
            return;
        }
    }
}

std::optional<Status> CpuPageReader::take_ahead(size_t ci) {
    Ahead& a = *ahead_.slots[ci % kAheadChunks];
    std::unique_lock lock(a.mu);
    if (a.state == Ahead::State::idle || a.chunk != ci) return std::nullopt;
    lock.unlock();
    a.run();  // not started yet: on this thread rather than wait for a worker
    lock.lock();
    a.cv.wait(lock, [&] { return a.state == Ahead::State::done; });
    a.state = Ahead::State::idle;
    if (a.status) {
        std::swap(chunk_buf_, a.buf);
        ++decompressed_ahead_;
    }
    return std::move(a.status);
}

Status CpuPageReader::decompress_chunk(const MappedFile& file, uint32_t cpu, size_t ci, const Chunk& ch,
                                       Decompressor& dec, std::vector<uint8_t>& zbuf,
                                       std::vector<uint8_t>& out) {
    // Copied (pread) rather than read through the mapping: as for uncompressed pages, cheaper for
    // the kernel than faulting the file's pages in and releasing them.
    std::span<const uint8_t> z;
    if (file.mode() == MappedFile::Mode::memory) {
        auto view = file.read(ch.file_offset + 8, ch.zsize, zbuf);
        if (!view) return Error(std::move(view).error()).in_file(file.path());
        z = *view;
    } else {
        zbuf.resize(ch.zsize);
        if (Status st = file.copy(ch.file_offset + 8, ch.zsize, zbuf.data()); !st)
            return Error(std::move(st).error()).in_file(file.path());
        z = zbuf;
    }
    out.resize(ch.size);
    if (auto st = dec.decompress(z, out); !st) {
        return Error(Errc::decompress, "CPU " + std::to_string(cpu) + ": chunk " + std::to_string(ci) +
                                           " does not decompress: " + st.error().message())
            .at_offset(static_cast<int64_t>(ch.file_offset))
            .in_file(file.path());
    }
    return {};
}

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
    const size_t previous = current_chunk_;
    // A failed chunk must not stay "current" with half-written contents.
    current_chunk_ = SIZE_MAX;
    Status st;
    std::optional<Status> ahead = ahead_.slots.empty() ? std::nullopt : take_ahead(ci);
    const bool shared = !ahead && shared_ && shared_->get(ci, chunk_buf_);
    if (ahead)
        st = std::move(*ahead);
    else if (!shared)
        st = decompress_chunk(*file_, cpu_, ci, ch, *decompressor_, zbuf_, chunk_buf_);
    if (!st) return st;
    if (shared)
        ++shared_hits_;
    else
        ++decompressions_;
    current_chunk_ = ci;
    // Forwards (or from the start): the next chunk is decompressed meanwhile.
    if (!ahead_.slots.empty() && (previous == SIZE_MAX || ci > previous)) post_ahead(ci);
    return {};
}

Expected<std::span<const uint8_t>> CpuPageReader::window_page(uint64_t index) {
    if (index < window_first_ || index >= window_first_ + window_pages_) {
        const uint64_t full_pages = data_size_ / page_size_;
        const uint64_t n = std::max<uint64_t>(1, kReadWindow / page_size_);
        // Forwards (or a jump): the window starts at the page; backwards: it ends with it.
        uint64_t first = index;
        if (window_pages_ != 0 && index < window_first_) first = index + 1 > n ? index + 1 - n : 0;
        window_pages_ = 0;
        const uint64_t count = std::min(n, full_pages - first);
        // and the bytes after the window's last page, as far as the CPU's data goes
        const uint64_t end = std::min(data_size_, (first + count + 1) * page_size_);
        window_.resize(end - first * page_size_);
        if (Status st = file_->copy(data_offset_ + first * page_size_, window_.size(), window_.data()); !st)
            return Error(std::move(st).error()).in_file(file_->path());
        window_first_ = first;
        window_pages_ = count;
    }
    const uint64_t at = (index - window_first_) * page_size_;
    after_ = static_cast<uint32_t>(std::min<uint64_t>(page_size_, window_.size() - at - page_size_));
    return std::span<const uint8_t>(window_.data() + at, page_size_);
}

Expected<std::span<const uint8_t>> CpuPageReader::load(uint64_t index) {
    const uint64_t begin = index * page_size_;
    const uint64_t avail = std::min<uint64_t>(page_size_, data_size_ - begin);
    after_ = 0;

    if (compression_ == Compression::none) {
        if (avail == page_size_ && file_->mode() == MappedFile::Mode::memory) {
            after_ = static_cast<uint32_t>(std::min<uint64_t>(page_size_, data_size_ - begin - avail));
            return file_->bytes().subspan(data_offset_ + begin, page_size_);
        }
        if (avail == page_size_) return window_page(index);
        // A short last page: copy and zero-pad.
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
    if (in + page_size_ <= ch.size) {
        after_ = static_cast<uint32_t>(std::min<uint64_t>(page_size_, ch.size - in - page_size_));
        return std::span<const uint8_t>(chunk_buf_.data() + in, page_size_);
    }
    // Only the last chunk may end inside a page (checked when the chunks were listed).
    page_buf_.assign(page_size_, 0);
    std::memcpy(page_buf_.data(), chunk_buf_.data() + in, static_cast<size_t>(ch.size - in));
    return std::span<const uint8_t>(page_buf_);
}

}  // namespace ringscope::io
