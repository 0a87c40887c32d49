// Internal to TraceDatReader: the state an opened reader shares, and the parser that fills it at
// open(). The parser's members are in a file per part of the format (trace-cmd.dat(5)):
// trace_dat_parser.cpp the file header and the checks of the CPU data, trace_dat_sections.cpp v7
// section headers and bodies (decompressed) and the STRINGS section, trace_dat_v7_options.cpp the
// v7 options sections (BUFFER options, metadata section offsets), trace_dat_v6.cpp the v6 layout
// (inline metadata, options, flyrecord CPU table).
#pragma once

#include "framework/io/byte_cursor.hpp"
#include "framework/io/compression.hpp"
#include "framework/io/file_cursor.hpp"
#include "framework/io/mapped_file.hpp"
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_types.hpp"

#include <ringscope/error.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ringscope::io::detail {

struct ReaderState {
    std::shared_ptr<const MappedFile> file;
    uint32_t version = 0;
    bool big = false;
    uint32_t long_size = 0;
    uint32_t page_size = 0;
    Compression compression = Compression::none;
    std::string zversion;
    TraceMetadata meta;
    std::vector<BufferInfo> buffers;
    std::vector<SectionInfo> sections;
    std::map<size_t, uint64_t> v6_latency_offsets;  // buffer index -> start of the text
    // What reading each CPU holds at once (buffer, CPU index -> bytes), and the sum, bounded by
    // kMaxReadingMemory: a page per CPU at open, a CPU's largest chunk once its chunks are listed.
    mutable std::mutex reading_mutex;
    mutable std::map<std::pair<size_t, size_t>, uint64_t> reading;
    mutable uint64_t reading_total = 0;

    // Counts BYTES for the CPU (replacing what it had); false when the sum would pass the cap.
    bool reserve_reading(size_t buffer, size_t cpu_index, uint64_t bytes) const {
        std::lock_guard lock(reading_mutex);
        uint64_t& have = reading[{buffer, cpu_index}];
        const uint64_t total = reading_total - have + bytes;
        if (bytes > have && total > kMaxReadingMemory) return false;
        reading_total = total;
        have = bytes;
        return true;
    }
};

// A v7 section header's flag: the section's bytes are compressed.
inline constexpr uint16_t kSectionCompressed = 1;
// Refuse declared sizes no real file has, before allocating for them. The biggest section is
// KALLSYMS: ~5.4 MB here, tens of MB with many modules.
inline constexpr uint64_t kMaxSectionSize = uint64_t(256) << 20;
// Sections that declare more are decompressed into memory that grows with the output.
inline constexpr uint64_t kTrustedSectionSize = uint64_t(16) << 20;

class TraceDatParser {
  public:
    TraceDatParser(ReaderState& s, int threads) : s_(s), f_(*s.file), threads_(threads) {}

    Status run();
    // The payload of the section at OFF (of id ID), decompressed. Reads only what open() checked
    // and the file: safe on the state of an opened reader.
    Expected<std::string> section_payload(uint64_t off, uint16_t id, const char* what);

  private:
    // DATA may point into OWNED: moving keeps the vector's buffer, a copy would not.
    struct Body {
        Body() = default;
        Body(Body&&) = default;
        Body(const Body&) = delete;
        std::vector<uint8_t> owned;
        // A compressed section's bytes: a string, so that a text section (kallsyms) moves out of
        // it rather than being copied (~5 MB).
        std::string decompressed_bytes;
        std::span<const uint8_t> data;  // an uncompressed section's bytes
        uint64_t base = 0;
        bool decompressed = false;
        // Not a span kept into DECOMPRESSED_BYTES: a string short enough to be stored inline (an
        // empty PRINTK section) moves its bytes, and the span would point into the moved-from one.
        std::span<const uint8_t> bytes() const {
            if (!decompressed) return data;
            return {reinterpret_cast<const uint8_t*>(decompressed_bytes.data()), decompressed_bytes.size()};
        }
        ByteCursor cursor(bool big, const char* what) const {
            return ByteCursor(bytes(), base, big, what, decompressed);
        }
    };
    struct SectionHeader {
        uint16_t id;
        uint16_t flags;
        uint32_t desc;
        uint64_t size;
    };

    Status parse_file_header();
    Status check_cpu_data(const BufferInfo& b);
    // A page for every CPU with data, all read at once by the time merge: 16 CPUs of 64 MiB
    // pages took 1 GB.
    Status reserve_pages();

    // v7 sections (trace_dat_sections.cpp)
    // The bytes of a section (decompressed when its flag says so). EXPECTED_ID < 0: any id. DEC:
    // the decompressor to use (made when needed; null: this parser's).
    Expected<Body> section_body(uint64_t off, int expected_id, const char* what, SectionHeader* out = nullptr,
                                std::unique_ptr<Decompressor>* dec = nullptr);
    Status section_header_at(uint64_t off, OptionId expected, const char* what, SectionHeader& h);
    // libtracecmd finds STRINGS sections by walking section headers from the end of the file
    // header; do the same (and record every section for dump-style users).
    Status scan_sections();

    // v7 options (trace_dat_v7_options.cpp)
    Status parse_v7();
    Status parse_buffer_option_v7(uint16_t id, std::span<const uint8_t> data, uint64_t off);
    Status read_v7_metadata();
    // Section ID at OFF into the metadata, with the decompressor in DEC (null: this parser's).
    Status read_v7_section(uint16_t id, uint64_t off, std::unique_ptr<Decompressor>* dec);
    Status finish_buffers();

    // v6 (trace_dat_v6.cpp)
    Status parse_v6();
    Expected<std::string> read_tag(FileCursor& c);
    Status parse_v6_options(FileCursor& c, TraceDatOptions& opts,
                            std::vector<std::pair<uint64_t, std::string>>* buffers);
    Status parse_v6_data(FileCursor& c, const std::string& tag, uint32_t ncpu, BufferInfo& b, size_t index);

    ReaderState& s_;
    const MappedFile& f_;
    uint64_t header_end_ = 0;
    uint64_t options_start_ = 0;
    std::vector<uint8_t> strings_;
    std::vector<uint32_t> descs_;
    std::map<uint16_t, uint64_t> section_offsets_;
    int threads_ = 1;
    std::optional<BufferInfo> top_;
    std::vector<BufferInfo> instances_;
    std::unique_ptr<Decompressor> decomp_;
};

}  // namespace ringscope::io::detail
