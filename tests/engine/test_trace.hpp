// Test helpers: sub-buffer pages built by hand and small trace.dat files written with the
// project's writer (metadata borrowed from a committed trace), so engine tests control every
// timestamp, flag and byte.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ringscope::engine {
class TraceFile;
}

namespace ringscope::engine::test {

// One 4096-byte little-endian sub-buffer with 8-byte commit word (x86-64).
class PageBuilder {
  public:
    explicit PageBuilder(uint64_t page_ts);
    // An event of `words` 32-bit payload words (1..28) at absolute time ts (>= the previous one);
    // the first payload word is `tag` (tests read it back), the rest zero.
    PageBuilder& event(uint64_t ts, uint32_t tag, uint32_t words = 2);
    // Lost events before this page: count >= 0 stores the count, -1 sets only the flag.
    PageBuilder& missed(int64_t count);
    // Overrides the commit word's size field (to make the page corrupt).
    PageBuilder& raw_commit(uint64_t commit);
    std::vector<uint8_t> build() const;

  private:
    std::vector<uint8_t> page_;
    uint64_t last_ts_;
    uint32_t pos_ = 16;
    int64_t missed_ = 0;
    bool has_raw_commit_ = false;
    uint64_t raw_commit_ = 0;
};

// Writes a v7 file (compression none or zstd) with the metadata of tests/data/traces/basic.dat and
// the given pages for CPUs 0..N-1; returns its path (in a temp folder removed at exit).
std::string write_trace(const std::vector<std::vector<std::vector<uint8_t>>>& cpus, bool zstd = false);

std::string data_path(const std::string& rel);  // RINGSCOPE_TEST_DATA_DIR/rel

// TraceFile::open with default options; throws (failing the test) when the file does not open.
std::unique_ptr<TraceFile> open_file(const std::string& path);

}  // namespace ringscope::engine::test
