#include "framework/io/compression.hpp"

#include <zlib.h>
#include <zstd.h>

namespace ringscope::io {

const char* compression_name(Compression c) noexcept {
    switch (c) {
        case Compression::none:
            return "none";
        case Compression::zlib:
            return "zlib";
        case Compression::zstd:
            return "zstd";
    }
    return "none";
}

Expected<Compression> parse_compression(const std::string& name) {
    if (name == "none") return Compression::none;
    if (name == "zlib") return Compression::zlib;
    if (name == "zstd") return Compression::zstd;
    return Error(Errc::unsupported, "unknown compression algorithm '" + name + "'");
}

std::string compression_library_version(Compression c) {
    switch (c) {
        case Compression::none:
            return "";
        case Compression::zlib:
            return zlibVersion();
        case Compression::zstd:
            return ZSTD_versionString();
    }
    return "";
}

namespace {

class ZstdDecompressor final : public Decompressor {
  public:
    ZstdDecompressor() : ctx_(ZSTD_createDCtx()) {}
    ~ZstdDecompressor() override { ZSTD_freeDCtx(ctx_); }
    Status decompress(std::span<const uint8_t> in, std::span<uint8_t> out) override {
        if (!ctx_) return Error(Errc::decompress, "zstd: cannot allocate a context");
        size_t r = ZSTD_decompressDCtx(ctx_, out.data(), out.size(), in.data(), in.size());
        if (ZSTD_isError(r)) return Error(Errc::decompress, std::string("zstd: ") + ZSTD_getErrorName(r));
        if (r != out.size()) {
            return Error(Errc::decompress, "zstd: chunk holds " + std::to_string(r) + " bytes, header says " +
                                               std::to_string(out.size()));
        }
        return {};
    }

  private:
    ZSTD_DCtx* ctx_;
};

class ZlibDecompressor final : public Decompressor {
  public:
    Status decompress(std::span<const uint8_t> in, std::span<uint8_t> out) override {
        uLongf out_len = out.size();
        // uncompress() wants a non-null destination even for empty output.
        uint8_t dummy = 0;
        int r = uncompress(out.empty() ? &dummy : out.data(), &out_len, in.data(), in.size());
        if (r != Z_OK) return Error(Errc::decompress, std::string("zlib: ") + zError(r));
        if (out_len != out.size()) {
            return Error(Errc::decompress, "zlib: chunk holds " + std::to_string(out_len) +
                                               " bytes, header says " + std::to_string(out.size()));
        }
        return {};
    }
};

class ZstdCompressor final : public Compressor {
  public:
    explicit ZstdCompressor(int level) : ctx_(ZSTD_createCCtx()), level_(level) {}
    ~ZstdCompressor() override { ZSTD_freeCCtx(ctx_); }
    Status compress(std::span<const uint8_t> in, std::vector<uint8_t>& out) override {
        if (!ctx_) return Error(Errc::io, "zstd: cannot allocate a context");
        out.resize(ZSTD_compressBound(in.size()));
        size_t r = ZSTD_compressCCtx(ctx_, out.data(), out.size(), in.data(), in.size(), level_);
        if (ZSTD_isError(r)) return Error(Errc::io, std::string("zstd: ") + ZSTD_getErrorName(r));
        out.resize(r);
        return {};
    }

  private:
    ZSTD_CCtx* ctx_;
    int level_;
};

class ZlibCompressor final : public Compressor {
  public:
    explicit ZlibCompressor(int level) : level_(level) {}
    Status compress(std::span<const uint8_t> in, std::vector<uint8_t>& out) override {
        uLongf len = compressBound(in.size());
        out.resize(len);
        int r = compress2(out.data(), &len, in.data(), in.size(), level_);
        if (r != Z_OK) return Error(Errc::io, std::string("zlib: ") + zError(r));
        out.resize(len);
        return {};
    }

  private:
    int level_;
};

}  // namespace

std::unique_ptr<Decompressor> Decompressor::create(Compression c) {
    switch (c) {
        case Compression::zstd:
            return std::make_unique<ZstdDecompressor>();
        case Compression::zlib:
            return std::make_unique<ZlibDecompressor>();
        case Compression::none:
            break;
    }
    return nullptr;
}

std::unique_ptr<Compressor> Compressor::create(Compression c, int level) {
    switch (c) {
        // trace-cmd: zstd at the library default, zlib at Z_BEST_COMPRESSION.
        case Compression::zstd:
            return std::make_unique<ZstdCompressor>(level ? level : ZSTD_CLEVEL_DEFAULT);
        case Compression::zlib:
            return std::make_unique<ZlibCompressor>(level ? level : Z_BEST_COMPRESSION);
        case Compression::none:
            break;
    }
    return nullptr;
}

}  // namespace ringscope::io
