// Writes trace-cmd trace.dat files that trace-cmd 3.1.6 reads: version 7 (compression none, zlib or
// zstd; metadata sections compressed too, CPU data in compressed chunks) and version 6.
//
// Usage: create() with the layout of every buffer, then for each buffer in order and each of its
// CPUs in order: begin_cpu(), write_pages() any number of times, end_cpu(); then finish().
// v7 writes the metadata at finish() (so saved cmdlines and CPU stats known only at the end of a
// recording can still be set through metadata()); v6 writes it in create().
#pragma once

#include "framework/io/compression.hpp"
#include "framework/io/trace_dat_types.hpp"

#include <ringscope/error.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ringscope::io {

struct WriterConfig {
    uint32_t file_version = 7;                    // 6 or 7
    Compression compression = Compression::zstd;  // v7 only; v6 is always uncompressed
    int compression_level = 0;                    // 0 = trace-cmd's choice
    bool big_endian = false;
    uint32_t long_size = 8;
    uint32_t page_size = 4096;  // the file header's page size
    uint32_t chunk_pages = 10;  // pages per compressed chunk (trace-cmd: 10)
};

struct BufferSpec {
    std::string name;            // "" = top buffer (must be first when present)
    std::string clock;           // v7 BUFFER option clock ("local", "x86-tsc", ...)
    uint32_t page_size = 0;      // sub-buffer size; 0 = WriterConfig::page_size
    std::vector<uint32_t> cpus;  // CPU ids that have data, in the order they will be written
};

class TraceDatWriter {
  public:
    // Errors: Errc::invalid_argument (bad config or layout: v6 instance without a top buffer,
    // duplicate names, page size not a multiple of 8...), Errc::io.
    static Expected<std::unique_ptr<TraceDatWriter>> create(const std::string& path, WriterConfig config,
                                                            TraceMetadata metadata,
                                                            std::vector<BufferSpec> buffers);
    ~TraceDatWriter();
    TraceDatWriter(const TraceDatWriter&) = delete;
    TraceDatWriter& operator=(const TraceDatWriter&) = delete;

    // Still editable until finish() for v7 (ignored after create() for v6).
    TraceMetadata& metadata() noexcept;

    // Starts the next CPU of the layout (buffers in order, CPUs in their listed order).
    Status begin_cpu();
    // Whole pages (size a multiple of the buffer's page size).
    Status write_pages(std::span<const uint8_t> pages);
    Status end_cpu();
    // Writes everything still pending and closes the file. The writer is unusable afterwards.
    Status finish();

  private:
    struct State;
    explicit TraceDatWriter(std::unique_ptr<State> s);
    std::unique_ptr<State> s_;
};

// Writes a complete copy of READER's content (metadata, options, every buffer and CPU page) with
// CONFIG's version and compression (round trips, conversions, test generators). Endianness, long
// size and page sizes are the reader's, so every page stays byte-identical. Latency (text) buffers
// are not copied.
class TraceDatReader;
Status write_trace_dat_copy(const TraceDatReader& reader, const std::string& path, WriterConfig config);
// The same with other metadata (edited options, say: test generators for time sync cases).
Status write_trace_dat_copy(const TraceDatReader& reader, const std::string& path, WriterConfig config,
                            const TraceMetadata& metadata);

}  // namespace ringscope::io
