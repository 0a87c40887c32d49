// Block (de)compression as trace-cmd uses it: each block is one complete zstd frame or one zlib
// stream (compress2/uncompress format), with the sizes kept outside the block.
#pragma once

#include "framework/io/trace_dat_types.hpp"

#include <ringscope/error.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ringscope::io {

// The file header's "name\0version\0" -> Compression. Errc::unsupported for anything else.
Expected<Compression> parse_compression(const std::string& name);
// What trace-cmd writes as the version for the library linked in ("1.5.4", "1.2.13").
std::string compression_library_version(Compression c);

// Whether SIZE uncompressed bytes can come from ZSIZE compressed ones: checked before allocating
// for a declared size, so a corrupt size field cannot make the reader allocate gigabytes.
inline bool plausible_expansion(uint64_t zsize, uint64_t size) {
    return size <= zsize * 4096 + 65536;
}

class Decompressor {
  public:
    static std::unique_ptr<Decompressor> create(Compression c);
    virtual ~Decompressor() = default;
    // Decompresses IN into OUT, which must receive exactly OUT.size() bytes.
    // Errc::decompress with the library's message on any mismatch.
    virtual Status decompress(std::span<const uint8_t> in, std::span<uint8_t> out) = 0;
    // The same into OUT (replaced), which grows only as the output arrives, so that a declared
    // SIZE the data does not back costs no memory: decompression stops with an error as soon as
    // the output passes SIZE, and the result must be exactly SIZE bytes.
    virtual Status decompress_growing(std::span<const uint8_t> in, size_t size, std::string& out) = 0;
};

class Compressor {
  public:
    // LEVEL 0 = the default trace-cmd uses (zstd: library default, zlib: 9).
    static std::unique_ptr<Compressor> create(Compression c, int level = 0);
    virtual ~Compressor() = default;
    // Replaces OUT with the compressed form of IN.
    virtual Status compress(std::span<const uint8_t> in, std::vector<uint8_t>& out) = 0;
};

}  // namespace ringscope::io
