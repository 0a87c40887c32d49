#include "framework/io/trace_dat_reader.hpp"

#include "framework/io/byte_cursor.hpp"
#include "framework/io/compression.hpp"
#include "framework/io/trace_dat_parser.hpp"

#include <algorithm>

namespace ringscope::io {

Expected<TraceDatReader> TraceDatReader::open(const std::string& path, int threads) {
    auto f = MappedFile::open(path);
    if (!f) return std::move(f).error();
    return open(std::shared_ptr<const MappedFile>(std::move(*f)), threads);
}

Expected<TraceDatReader> TraceDatReader::open(std::shared_ptr<const MappedFile> file, int threads) {
    auto s = std::make_shared<detail::ReaderState>();
    s->file = std::move(file);
    detail::TraceDatParser p(*s, threads);
    if (auto st = p.run(); !st) return Error(std::move(st).error()).in_file(s->file->path());
    return TraceDatReader(std::move(s));
}

const std::string& TraceDatReader::path() const noexcept {
    return s_->file->path();
}
const std::shared_ptr<const MappedFile>& TraceDatReader::file() const noexcept {
    return s_->file;
}
uint32_t TraceDatReader::file_version() const noexcept {
    return s_->version;
}
bool TraceDatReader::big_endian() const noexcept {
    return s_->big;
}
uint32_t TraceDatReader::long_size() const noexcept {
    return s_->long_size;
}
uint32_t TraceDatReader::page_size() const noexcept {
    return s_->page_size;
}
Compression TraceDatReader::compression() const noexcept {
    return s_->compression;
}
const std::string& TraceDatReader::compression_version() const noexcept {
    return s_->zversion;
}
const TraceMetadata& TraceDatReader::metadata() const noexcept {
    return s_->meta;
}
std::shared_ptr<const TraceMetadata> TraceDatReader::shared_metadata() const noexcept {
    return std::shared_ptr<const TraceMetadata>(s_, &s_->meta);
}
uint32_t TraceDatReader::cpu_count() const noexcept {
    return s_->meta.options.cpu_count.value_or(s_->meta.cpu_count);
}
const std::vector<BufferInfo>& TraceDatReader::buffers() const noexcept {
    return s_->buffers;
}
const std::vector<SectionInfo>& TraceDatReader::sections() const noexcept {
    return s_->sections;
}
std::optional<size_t> TraceDatReader::buffer_index(std::string_view name) const noexcept {
    for (size_t i = 0; i < s_->buffers.size(); ++i)
        if (s_->buffers[i].name == name) return i;
    return std::nullopt;
}

Expected<CpuPageReader> TraceDatReader::cpu_pages(size_t buffer, size_t cpu_index) const {
    const auto err = [&](Errc code, const std::string& m, int64_t off = Error::kNoOffset) {
        return Error(code, m).at_offset(off).in_file(path());
    };
    if (buffer >= s_->buffers.size())
        return err(Errc::invalid_argument, "no buffer " + std::to_string(buffer));
    const BufferInfo& b = s_->buffers[buffer];
    if (cpu_index >= b.cpus.size()) {
        return err(Errc::invalid_argument,
                   "buffer \"" + b.name + "\" has no CPU entry " + std::to_string(cpu_index));
    }
    const CpuDataInfo& info = b.cpus[cpu_index];
    CpuPageReader r;
    r.file_ = s_->file;
    r.cpu_ = info.cpu;
    r.page_size_ = b.page_size;
    r.data_offset_ = info.offset;
    if (!b.compressed) {
        r.data_size_ = info.size;
        r.page_count_ = (info.size + b.page_size - 1) / b.page_size;
        return r;
    }
    if (Status st = list_chunks(buffer, cpu_index, r); !st) return std::move(st).error();
    return r;
}

// Compressed CPU data is a chunk count, then each chunk's compressed and uncompressed sizes
// before its bytes; the reader decompresses a chunk at a time (three with decompress-ahead).
Status TraceDatReader::list_chunks(size_t buffer, size_t cpu_index, CpuPageReader& r) const {
    const auto err = [&](Errc code, const std::string& m, int64_t off = Error::kNoOffset) {
        return Error(code, m).at_offset(off).in_file(path());
    };
    const BufferInfo& b = s_->buffers[buffer];
    const CpuDataInfo& info = b.cpus[cpu_index];
    const MappedFile& f = *s_->file;
    r.compression_ = s_->compression;
    r.decompressor_ = Decompressor::create(s_->compression);
    std::vector<uint8_t> scratch;
    auto cnt = f.read(info.offset, 4, scratch);
    if (!cnt) return Error(std::move(cnt).error()).in_file(path());
    const uint32_t count = load_endian<uint32_t>(cnt->data(), s_->big);
    uint64_t p = info.offset + 4;
    if (count > (f.size() - p) / 8) {
        return err(Errc::corrupt,
                   "CPU " + std::to_string(info.cpu) + ": chunk count " + std::to_string(count) +
                       " does not fit the file",
                   static_cast<int64_t>(info.offset));
    }
    r.chunks_.reserve(count);
    uint64_t total = 0;
    uint32_t max_chunk = 0;
    for (uint32_t i = 0; i < count; ++i) {
        if (f.size() - p < 8) {
            return err(Errc::truncated,
                       "CPU " + std::to_string(info.cpu) + ": chunk " + std::to_string(i) +
                           " header past the end of the file",
                       static_cast<int64_t>(p));
        }
        // Read (pread), not through the mapping: a header every few KB through the whole of the
        // CPU's data, and a page fault costs more than the call (15.8 against 18.9 ms of start-up for
        // report on the 26 MB bench trace), and leaves no page of the file mapped.
        uint8_t hb[8];
        if (Status st = f.copy(p, 8, hb); !st) return Error(std::move(st).error()).in_file(path());
        const uint32_t zsize = load_endian<uint32_t>(hb, s_->big);
        const uint32_t size = load_endian<uint32_t>(hb + 4, s_->big);
        if (zsize > f.size() - p - 8) {
            return err(Errc::truncated,
                       "CPU " + std::to_string(info.cpu) + ": chunk " + std::to_string(i) + " of " +
                           std::to_string(zsize) + " bytes runs past the end of the file",
                       static_cast<int64_t>(p));
        }
        if (size > uint64_t(kMaxChunkPages) * b.page_size || !plausible_expansion(zsize, size)) {
            return err(Errc::corrupt,
                       "CPU " + std::to_string(info.cpu) + ": chunk " + std::to_string(i) + " declares " +
                           std::to_string(size) + " uncompressed bytes",
                       static_cast<int64_t>(p));
        }
        if (i + 1 < count && size % b.page_size != 0) {
            return err(Errc::corrupt,
                       "CPU " + std::to_string(info.cpu) + ": chunk " + std::to_string(i) + " holds " +
                           std::to_string(size) + " bytes, not a whole number of " +
                           std::to_string(b.page_size) + "-byte pages",
                       static_cast<int64_t>(p));
        }
        r.chunks_.push_back(CpuPageReader::Chunk{p, total, zsize, size});
        total += size;
        max_chunk = std::max(max_chunk, size);
        p += 8 + zsize;
    }
    // Every CPU's largest chunk is in memory at once while the CPUs are merged: four CPUs whose
    // tables point at one 512 MiB chunk took 2.1 GB.
    if (!s_->reserve_reading(buffer, cpu_index, std::max<uint64_t>(max_chunk, b.page_size))) {
        return err(Errc::corrupt,
                   "CPU " + std::to_string(info.cpu) + ": chunks of up to " + std::to_string(max_chunk) +
                       " bytes; with the other CPUs' they need more than " +
                       std::to_string(kMaxReadingMemory >> 20) + " MiB",
                   static_cast<int64_t>(info.offset));
    }
    r.data_size_ = total;
    r.page_count_ = (total + b.page_size - 1) / b.page_size;
    r.chunk_buf_.reserve(max_chunk);
    return {};
}

Expected<std::optional<std::string>> TraceDatReader::option_section(OptionId id) const {
    const RawOption* opt = nullptr;
    for (const RawOption& r : s_->meta.options.unknown)
        if (r.id == static_cast<uint16_t>(id)) opt = &r;  // the last one, as libtracecmd keeps
    if (!opt) return std::optional<std::string>();
    auto text = read_option_section(*opt);
    if (!text) return std::move(text).error();
    return std::optional<std::string>(std::move(*text));
}

Expected<std::vector<ExtraSection>> TraceDatReader::extra_sections() const {
    std::vector<ExtraSection> out;
    for (const RawOption& r : s_->meta.options.unknown) {
        if (!is_section_offset_option(r.id)) continue;
        auto text = read_option_section(r);
        if (!text) return std::move(text).error();
        const auto id = static_cast<OptionId>(r.id);
        // The descriptions this project's writer gives them (capture/kernel_sections.cpp).
        const char* desc = id == OptionId::btf_file       ? "BTF"
                           : id == OptionId::modules_file ? "modules"
                                                          : "last boot info";
        out.push_back({id, desc, std::move(*text)});
    }
    return out;
}

Expected<std::string> TraceDatReader::read_option_section(const RawOption& opt) const {
    if (s_->version < 7) return std::string(opt.data.begin(), opt.data.end());
    if (opt.data.size() < 8) {
        return Error(Errc::corrupt,
                     "section offset option " + std::to_string(opt.id) + " shorter than 8 bytes")
            .in_file(path());
    }
    const uint64_t off = load_endian<uint64_t>(opt.data.data(), s_->big);
    const std::string what = "section of option " + std::to_string(opt.id);
    // section_body only reads the state (the file, its byte order and compression).
    detail::TraceDatParser p(const_cast<detail::ReaderState&>(*s_), 1);
    auto text = p.section_payload(off, opt.id, what.c_str());
    if (!text) return Error(std::move(text).error()).in_file(path());
    return std::move(*text);
}

Expected<std::string> TraceDatReader::buffer_text(size_t buffer) const {
    const auto err = [&](Errc code, const std::string& m, int64_t off = Error::kNoOffset) {
        return Error(code, m).at_offset(off).in_file(path());
    };
    if (buffer >= s_->buffers.size())
        return err(Errc::invalid_argument, "no buffer " + std::to_string(buffer));
    const BufferInfo& b = s_->buffers[buffer];
    if (!b.latency) return err(Errc::invalid_argument, "buffer \"" + b.name + "\" holds no latency text");
    const MappedFile& f = *s_->file;
    std::vector<uint8_t> scratch;
    if (s_->version < 7) {
        auto it = s_->v6_latency_offsets.find(buffer);
        const uint64_t off = it == s_->v6_latency_offsets.end() ? f.size() : it->second;
        auto t = f.read(off, static_cast<size_t>(f.size() - off), scratch);
        if (!t) return Error(std::move(t).error()).in_file(path());
        return std::string(reinterpret_cast<const char*>(t->data()), t->size());
    }
    const uint64_t off = b.section_offset;
    auto hb = f.read(off, 16, scratch);
    if (!hb) return Error(std::move(hb).error()).in_file(path());
    const uint16_t flags = load_endian<uint16_t>(hb->data() + 2, s_->big);
    const uint64_t size = load_endian<uint64_t>(hb->data() + 8, s_->big);
    if (size > f.size() - off - 16) return err(Errc::truncated, "latency section runs past the end", off);
    if (!(flags & detail::kSectionCompressed)) {
        auto t = f.read(off + 16, static_cast<size_t>(size), scratch);
        if (!t) return Error(std::move(t).error()).in_file(path());
        return std::string(reinterpret_cast<const char*>(t->data()), t->size());
    }
    // Compressed latency data uses the CPU data's chunk format.
    auto dec = Decompressor::create(s_->compression);
    if (!dec) return err(Errc::corrupt, "compressed latency section in a file without compression", off);
    ByteCursor c(*f.read(off + 16, static_cast<size_t>(size), scratch), off + 16, s_->big, "latency section");
    auto count = c.read<uint32_t>();
    if (!count) return Error(std::move(count).error()).in_file(path());
    std::string out;
    for (uint32_t i = 0; i < *count; ++i) {
        auto z = c.read<uint32_t>();
        auto n = z ? c.read<uint32_t>() : Expected<uint32_t>(z.error());
        if (!n) return Error(std::move(n).error()).in_file(path());
        auto data = c.bytes(*z);
        if (!data) return Error(std::move(data).error()).in_file(path());
        if (*n > (1u << 30) || !plausible_expansion(*z, *n))
            return err(Errc::corrupt, "latency chunk too large", static_cast<int64_t>(c.offset()));
        const size_t at = out.size();
        out.resize(at + *n);
        if (auto st =
                dec->decompress(*data, std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()) + at, *n));
            !st) {
            return Error(std::move(st).error())
                .at_offset(static_cast<int64_t>(c.offset() - *z))
                .in_file(path());
        }
    }
    return out;
}

}  // namespace ringscope::io
