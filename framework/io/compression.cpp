#include "framework/io/compression.hpp"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>

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

// decompress_growing's output: starts at one step (or the whole size when smaller) and doubles,
// one byte past SIZE at most, so output beyond SIZE shows as a longer result.
class GrowingOutput {
  public:
    GrowingOutput(std::string& out, size_t size) : out_(out), size_(size) { out_.clear(); }
    // Room for more output; false when SIZE + 1 bytes are there already.
    bool grow() {
        if (out_.size() > size_) return false;
        const size_t want = std::max<size_t>(kStep, out_.size() * 2);
        out_.resize(std::min<size_t>(want, size_ + 1));
        return true;
    }
    uint8_t* data() noexcept { return reinterpret_cast<uint8_t*>(out_.data()); }
    size_t room() const noexcept { return out_.size(); }
    Status finish(size_t produced, const char* lib) {
        out_.resize(std::min(produced, out_.size()));
        if (produced == size_) return {};
        return Error(Errc::decompress, std::string(lib) + ": block holds " +
                                           (produced > size_ ? "more than " + std::to_string(size_)
                                                             : std::to_string(produced)) +
                                           " bytes, header says " + std::to_string(size_));
    }

  private:
    static constexpr size_t kStep = size_t(1) << 20;
    std::string& out_;
    size_t size_;
};

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

    Status decompress_growing(std::span<const uint8_t> in, size_t size, std::string& out) override {
        if (!ctx_) return Error(Errc::decompress, "zstd: cannot allocate a context");
        ZSTD_DCtx_reset(ctx_, ZSTD_reset_session_only);
        GrowingOutput g(out, size);
        ZSTD_inBuffer ib{in.data(), in.size(), 0};
        size_t produced = 0;
        for (;;) {
            if (produced == g.room() && !g.grow()) break;
            ZSTD_outBuffer ob{g.data(), g.room(), produced};
            const size_t r = ZSTD_decompressStream(ctx_, &ob, &ib);
            if (ZSTD_isError(r)) return Error(Errc::decompress, std::string("zstd: ") + ZSTD_getErrorName(r));
            const bool progress = ob.pos != produced;
            produced = ob.pos;
            if (r == 0 && ib.pos == ib.size) break;  // the last frame is complete
            if (!progress && ib.pos == ib.size && produced < g.room())
                return Error(Errc::decompress, "zstd: the block ends inside its frame");
        }
        return g.finish(produced, "zstd");
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
    Status decompress_growing(std::span<const uint8_t> in, size_t size, std::string& out) override {
        z_stream zs{};
        if (inflateInit(&zs) != Z_OK) return Error(Errc::decompress, "zlib: cannot allocate a stream");
        GrowingOutput g(out, size);
        zs.next_in = const_cast<Bytef*>(in.data());
        zs.avail_in = static_cast<uInt>(in.size());
        size_t produced = 0;
        int r = Z_OK;
        while (r != Z_STREAM_END) {
            if (produced == g.room() && !g.grow()) break;
            zs.next_out = g.data() + produced;
            zs.avail_out = static_cast<uInt>(g.room() - produced);
            r = inflate(&zs, Z_NO_FLUSH);
            produced = g.room() - zs.avail_out;
            if (r == Z_BUF_ERROR && zs.avail_out != 0) r = Z_DATA_ERROR;  // input ended early
            if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) {
                inflateEnd(&zs);
                return Error(Errc::decompress, std::string("zlib: ") + zError(r));
            }
        }
        inflateEnd(&zs);
        return g.finish(produced, "zlib");
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
