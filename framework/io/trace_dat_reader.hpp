// Opens a trace-cmd trace.dat file (version 6 or 7; v7 compression none, zlib or zstd) and exposes
// everything it carries. Endianness and long size come from the file. All metadata is read and
// checked at open(); CPU data is read on demand through CpuPageReader.
// The reader is a cheap shared handle: copies share the same file and metadata; it is immutable
// after open() and safe to use from several threads.
#pragma once

#include "framework/io/cpu_page_reader.hpp"
#include "framework/io/mapped_file.hpp"
#include "framework/io/trace_dat_types.hpp"

#include <ringscope/error.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringscope::io {

// What a file may declare, checked before anything is allocated for it (Errc::corrupt, with the
// offset). A sub-buffer ("page") is at most the kernel's largest: 128 pages of 64 KiB.
inline constexpr uint32_t kMaxPageSize = uint32_t(8) << 20;
// A compressed chunk holds at most this many pages uncompressed (trace-cmd writes 10).
inline constexpr uint32_t kMaxChunkPages = 64;
// The pages and decompressed chunks that reading every CPU of a file at once holds: a page per
// CPU with data, or the CPU's largest chunk when compressed (times three with decompress-ahead).
inline constexpr uint64_t kMaxReadingMemory = uint64_t(256) << 20;

namespace detail {
struct ReaderState;
}

// A v7 section as found in the file (for dump-style tools and tests).
struct SectionInfo {
    uint16_t id = 0;
    uint16_t flags = 0;  // bit 0: compressed
    std::string description;
    uint64_t offset = 0;  // of the 16-byte section header
    uint64_t size = 0;    // bytes after the header (compressed size when compressed)
};

class TraceDatReader {
  public:
    // Errors (each with the file name and the byte offset): Errc::io, Errc::bad_magic,
    // Errc::bad_version, Errc::truncated, Errc::corrupt (bad option or section length, offsets
    // past the end, inconsistent buffers), Errc::decompress, Errc::unsupported (compression).
    // THREADS > 1: a v7 file's KALLSYMS section (~5 MB) is read on a thread of its own while the
    // other sections are (same result, same errors).
    static Expected<TraceDatReader> open(const std::string& path, int threads = 1);
    static Expected<TraceDatReader> open(std::shared_ptr<const MappedFile> file, int threads = 1);

    const std::string& path() const noexcept;
    const std::shared_ptr<const MappedFile>& file() const noexcept;

    uint32_t file_version() const noexcept;  // 6 or 7
    bool big_endian() const noexcept;
    uint32_t long_size() const noexcept;  // 4 or 8 (user space long size, as in the file header)
    uint32_t page_size() const noexcept;  // the file header's page size
    Compression compression() const noexcept;
    const std::string& compression_version() const noexcept;  // "" for v6 / none

    // header_page, header_event, ftrace and event formats, kallsyms, printk formats, saved
    // cmdlines, CPU count, typed options (and for v6 the text after the flyrecord table).
    const TraceMetadata& metadata() const noexcept;
    // The same, kept alive by the handle (for what parses parts of it later, e.g. kallsyms).
    std::shared_ptr<const TraceMetadata> shared_metadata() const noexcept;
    const TraceDatOptions& options() const noexcept { return metadata().options; }
    // CPUCOUNT when present, else the v6 header's count.
    uint32_t cpu_count() const noexcept;

    // buffers()[0] is the top buffer (name ""); instances follow in file order.
    // A v7 file without a top BUFFER option still gets an entry 0 with no CPUs.
    const std::vector<BufferInfo>& buffers() const noexcept;
    // Index into buffers() of the buffer called NAME ("" = top).
    std::optional<size_t> buffer_index(std::string_view name) const noexcept;
    // v7 sections in file order (empty for v6).
    const std::vector<SectionInfo>& sections() const noexcept;

    // Pages of CPU entry CPU_INDEX (index into buffers()[BUFFER].cpus, not the CPU id).
    Expected<CpuPageReader> cpu_pages(size_t buffer, size_t cpu_index) const;
    // The section an option holds the offset of (trace-cmd 3.4's BTF_FILE, LAST_BOOT_INFO,
    // MODULES_FILE: v7), read and decompressed now; a v6 file's option holds the payload itself.
    // nullopt when the file has no such option; errors name the file and offset.
    Expected<std::optional<std::string>> option_section(OptionId id) const;
    // Every such section, in option order, as TraceMetadata::extra_sections: what a copy of the
    // file (record's recovery, write_trace_dat_copy) writes again.
    Expected<std::vector<ExtraSection>> extra_sections() const;
    // Latency text of a BUFFER_TEXT (v7) / "latency" (v6) buffer.
    Expected<std::string> buffer_text(size_t buffer) const;

  private:
    // The chunks of compressed CPU data into R (sizes checked, memory reserved).
    Status list_chunks(size_t buffer, size_t cpu_index, CpuPageReader& r) const;
    Expected<std::string> read_option_section(const RawOption& opt) const;
    explicit TraceDatReader(std::shared_ptr<const detail::ReaderState> s) : s_(std::move(s)) {}
    std::shared_ptr<const detail::ReaderState> s_;
};

}  // namespace ringscope::io
