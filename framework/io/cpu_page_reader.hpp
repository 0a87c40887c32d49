// The sub-buffer pages of one CPU of one buffer, in file order, for the iteration engine.
// Uncompressed data: read 256 KB of pages at a time into a buffer of this reader (views into the
// bytes for files held in memory). Compressed data (v7 zlib/zstd): one chunk
// decompressed at a time into a buffer owned by this reader, so memory stays bounded by the largest
// chunk whatever the size of the file; going backwards decompresses each chunk once.
// One reader per CPU; readers of different CPUs may be used from different threads. With a
// TaskRunner (decompress_ahead), a forward walk has the next two chunks decompressed on another
// thread while it reads the current one: three decompressed chunks at most.
#pragma once

#include "framework/io/compression.hpp"
#include "framework/io/mapped_file.hpp"
#include "framework/io/shared_chunks.hpp"
#include "framework/io/task_runner.hpp"
#include "framework/io/trace_dat_types.hpp"

#include <ringscope/error.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace ringscope::io {

class CpuPageReader {
  public:
    CpuPageReader(CpuPageReader&&) noexcept = default;
    CpuPageReader& operator=(CpuPageReader&&) noexcept = default;
    ~CpuPageReader();
    // Another reader of the same pages, at the start, with its own decompressor and buffers (for
    // another thread): the chunk list is copied, not read from the file again.
    CpuPageReader clone() const;

    uint32_t cpu() const noexcept { return cpu_; }
    uint32_t page_size() const noexcept { return page_size_; }
    uint64_t page_count() const noexcept { return page_count_; }
    // Bytes of ring-buffer data (uncompressed).
    uint64_t data_size() const noexcept { return data_size_; }
    bool compressed() const noexcept { return compression_ != Compression::none; }
    size_t chunk_count() const noexcept { return chunks_.size(); }
    // How many chunk decompressions happened so far (tests and benchmarks check the "once" rule).
    uint64_t decompressions() const noexcept { return decompressions_; }
    // Compressed data read forwards: the chunk after the one loaded is decompressed by a task of
    // RUNNER (null: none; everything on the caller's thread, as without it). The pages and the
    // errors are the same either way; an error of a chunk shows when that chunk is loaded.
    void decompress_ahead(std::shared_ptr<TaskRunner> runner);
    // Chunks decompressed by the runner's tasks and used (tests).
    uint64_t decompressed_ahead() const noexcept { return decompressed_ahead_; }
    // Compressed data read by several readers (clones made after this call share SHARED too): a
    // chunk one of them published is copied rather than decompressed again.
    void share_chunks(std::shared_ptr<SharedChunks> shared) { shared_ = std::move(shared); }
    // Offers the chunk loaded (if any) to the readers sharing chunks with this one.
    void publish_current_chunk() const;
    // Chunks taken from the shared ones instead of being decompressed (tests).
    uint64_t shared_chunk_hits() const noexcept { return shared_hits_; }

    // The page next() returns; page_count() at the end.
    uint64_t position() const noexcept { return position_; }
    void seek(uint64_t index) noexcept { position_ = index; }

    // The page at position() and advances; an empty span after the last page.
    // The span is exactly page_size() bytes (a short last page is zero-padded) and stays valid
    // until the next call on this reader.
    Expected<std::span<const uint8_t>> next();

    // Page INDEX (< page_count()), same validity rules; does not move position().
    Expected<std::span<const uint8_t>> page(uint64_t index);

    // How many bytes after the page last returned are readable with it, up to one page: the next
    // page of the same decompressed chunk or of the CPU's data. libtracecmd reads a record's
    // fixed array past the record from its chunk or mapping, so `report -R` shows them.
    uint32_t bytes_after_page() const noexcept { return after_; }

    // A stable offset for page INDEX: the file offset for uncompressed data; for compressed data
    // the CPU data offset + INDEX * page_size (a virtual offset, as libtracecmd reports).
    uint64_t page_offset(uint64_t index) const noexcept { return data_offset_ + index * page_size_; }

  private:
    friend class TraceDatReader;

    struct Chunk {
        uint64_t file_offset;  // of the chunk's 8-byte header
        uint64_t data_begin;   // uncompressed offset of its first byte
        uint32_t zsize;
        uint32_t size;
    };

    struct Ahead;

    CpuPageReader() = default;
    Expected<std::span<const uint8_t>> load(uint64_t index);
    // Uncompressed page INDEX (a whole one) from window_, which is refilled by one read of the
    // pages around it when it does not hold it.
    Expected<std::span<const uint8_t>> window_page(uint64_t index);
    Status load_chunk(size_t chunk);
    // Reads and decompresses chunk CI into OUT; the error names the file, CPU, chunk and offset.
    static Status decompress_chunk(const MappedFile& file, uint32_t cpu, size_t ci, const Chunk& ch,
                                   Decompressor& dec, std::vector<uint8_t>& zbuf, std::vector<uint8_t>& out);
    // Takes chunk CI from the task when it holds (or is about to hold) it; nullopt when it does not.
    std::optional<Status> take_ahead(size_t ci);
    void post_ahead(size_t after);

    // The chunks coming from tasks; those not started are called off when the reader goes.
    struct AheadSlots {
        std::vector<std::shared_ptr<Ahead>> slots;  // shared with the tasks that fill them
        AheadSlots() = default;
        AheadSlots(AheadSlots&&) noexcept = default;
        AheadSlots& operator=(AheadSlots&& o) noexcept;
        ~AheadSlots();
        void cancel() noexcept;
    };

    std::shared_ptr<const MappedFile> file_;
    Compression compression_ = Compression::none;
    std::unique_ptr<Decompressor> decompressor_;
    uint32_t cpu_ = 0;
    uint32_t page_size_ = 0;
    uint64_t data_offset_ = 0;
    uint64_t data_size_ = 0;
    uint64_t page_count_ = 0;
    uint64_t position_ = 0;
    std::vector<Chunk> chunks_;
    size_t current_chunk_ = SIZE_MAX;
    std::vector<uint8_t> chunk_buf_;  // the one decompressed chunk
    std::vector<uint8_t> zbuf_;       // compressed bytes in pread mode
    std::vector<uint8_t> page_buf_;   // a padded last page
    uint32_t after_ = 0;              // bytes_after_page()
    // Uncompressed data read from the file: pages window_first_ .. + window_pages_, and the page
    // after them when there is one (bytes_after_page()). A copy costs the kernel less than mapping
    // and unmapping the file's pages, and leaves them in the cache.
    std::vector<uint8_t> window_;
    uint64_t window_first_ = 0;
    uint64_t window_pages_ = 0;
    static constexpr uint64_t kReadWindow = 256 << 10;
    uint64_t decompressions_ = 0;
    std::shared_ptr<TaskRunner> runner_;
    // Chunks decompressed ahead at most, besides the current one: enough lead that a worker busy
    // formatting finds the task before the walk needs its chunk.
    static constexpr size_t kAheadChunks = 2;
    AheadSlots ahead_;
    uint64_t decompressed_ahead_ = 0;
    std::shared_ptr<SharedChunks> shared_;
    uint64_t shared_hits_ = 0;
};

}  // namespace ringscope::io
