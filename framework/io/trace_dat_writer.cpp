#include "framework/io/trace_dat_writer.hpp"

#include "framework/io/atomic_output.hpp"
#include "framework/io/byte_cursor.hpp"
#include "framework/io/option_codec.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace ringscope::io {

namespace {

constexpr uint8_t kMagic[3] = {0x17, 0x08, 0x44};
// Section descriptions, as trace-cmd names them; their STRINGS ids are their offsets here.
constexpr const char* kDescriptions[] = {"headers", "ftrace events", "events format", "kallsyms",
                                         "printk",  "command lines", "options",       "strings"};

}  // namespace

struct TraceDatWriter::State {
    std::string path;
    std::unique_ptr<AtomicOutput> file;  // appears under `path` only when finished
    int fd = -1;
    WriterConfig cfg;
    TraceMetadata meta;
    std::vector<BufferSpec> buffers;
    std::unique_ptr<Compressor> comp;
    uint64_t pos = 0;  // end of the data written so far
    bool failed = false;
    bool finished = false;

    struct CpuOut {
        uint64_t offset = 0;
        uint64_t size = 0;
    };
    std::vector<std::vector<CpuOut>> out;  // [buffer][cpu index]
    std::vector<uint64_t> section_offset;  // v7 buffer sections; v6 "flyrecord" tables
    std::vector<bool> opened, closed;
    size_t next_buffer = 0, next_cpu = 0;
    bool in_cpu = false;
    size_t cur_buffer = 0, cur_cpu = 0;

    // compressed CPU data
    std::vector<uint8_t> pending;
    std::vector<uint8_t> zout;
    uint32_t chunks = 0;
    uint64_t count_pos = 0;

    // v6
    std::vector<uint64_t> v6_option_patch;  // per buffer: where its BUFFER option's offset lives
    uint32_t v6_ncpu = 0;

    std::map<std::string, uint32_t> string_ids;
    std::string strings;

    bool compressed() const { return cfg.file_version >= 7 && cfg.compression != Compression::none; }
    uint32_t page_size_of(size_t b) const {
        return buffers[b].page_size ? buffers[b].page_size : cfg.page_size;
    }

    Error io_error(const std::string& what) const {
        return Error(Errc::io, what + ": " + std::strerror(errno))
            .at_offset(static_cast<int64_t>(pos))
            .in_file(path);
    }

    // All of `b`, at `at` (pwrite) or else at the file's position (write, which moves `pos`);
    // EINTR retried.
    Status write_all(std::span<const uint8_t> b, std::optional<uint64_t> at) {
        size_t done = 0;
        while (done < b.size()) {
            const ssize_t r =
                at ? ::pwrite(fd, b.data() + done, b.size() - done, static_cast<off_t>(*at + done))
                   : ::write(fd, b.data() + done, b.size() - done);
            if (r < 0) {
                if (errno == EINTR) continue;
                failed = true;
                return io_error("cannot write");
            }
            done += static_cast<size_t>(r);
            if (!at) pos += static_cast<uint64_t>(r);
        }
        return {};
    }
    Status write(std::span<const uint8_t> b) { return write_all(b, std::nullopt); }
    Status write(const ByteSink& s) { return write(std::span<const uint8_t>(s.buffer())); }

    Status pwrite_at(uint64_t at, std::span<const uint8_t> b) { return write_all(b, at); }
    template <class T>
    Status patch(uint64_t at, T v) {
        uint8_t b[sizeof(T)];
        store_endian<T>(b, v, cfg.big_endian);
        return pwrite_at(at, b);
    }

    Status pad_to(uint64_t align) {
        const uint64_t target = (pos + align - 1) / align * align;
        std::vector<uint8_t> zeros(static_cast<size_t>(target - pos), 0);
        return write(zeros);
    }

    uint32_t string_id(const std::string& s) {
        auto it = string_ids.find(s);
        if (it != string_ids.end()) return it->second;
        const auto id = static_cast<uint32_t>(strings.size());
        strings += s;
        strings.push_back('\0');
        string_ids.emplace(s, id);
        return id;
    }

    uint32_t cpu_count() const {
        uint32_t n = meta.options.cpu_count.value_or(meta.cpu_count);
        for (const auto& b : buffers)
            for (uint32_t c : b.cpus) n = std::max(n, c + 1);
        return n;
    }

    // v7 section: header + (compressed) payload. Returns the section's offset.
    Expected<uint64_t> write_section(OptionId id, const char* desc, bool compress, const ByteSink& payload) {
        const uint64_t at = pos;
        ByteSink h(cfg.big_endian);
        h.put<uint16_t>(static_cast<uint16_t>(id));
        h.put<uint16_t>(compress ? 1 : 0);
        h.put<uint32_t>(string_id(desc));
        const auto& data = payload.buffer();
        if (!compress) {
            h.put<uint64_t>(data.size());
            if (auto st = write(h); !st) return std::move(st).error();
            if (auto st = write(data); !st) return std::move(st).error();
            return at;
        }
        if (auto st = comp->compress(data, zout); !st) return Error(std::move(st).error()).in_file(path);
        h.put<uint64_t>(zout.size() + 8);
        h.put<uint32_t>(static_cast<uint32_t>(zout.size()));
        h.put<uint32_t>(static_cast<uint32_t>(data.size()));
        if (auto st = write(h); !st) return std::move(st).error();
        if (auto st = write(zout); !st) return std::move(st).error();
        return at;
    }

    // ---- metadata payloads (identical in v6 inline form and v7 sections) ----
    void put_header_info(ByteSink& s) const {
        s.put_text(std::string_view("header_page\0", 12));
        s.put<uint64_t>(meta.header_page.size());
        s.put_text(meta.header_page);
        s.put_text(std::string_view("header_event\0", 13));
        s.put<uint64_t>(meta.header_event.size());
        s.put_text(meta.header_event);
    }
    void put_ftrace(ByteSink& s) const {
        s.put<uint32_t>(static_cast<uint32_t>(meta.ftrace_formats.size()));
        for (const auto& f : meta.ftrace_formats) {
            s.put<uint64_t>(f.size());
            s.put_text(f);
        }
    }
    void put_events(ByteSink& s) const {
        s.put<uint32_t>(static_cast<uint32_t>(meta.event_systems.size()));
        for (const auto& sys : meta.event_systems) {
            s.put_cstring(sys.system);
            s.put<uint32_t>(static_cast<uint32_t>(sys.formats.size()));
            for (const auto& f : sys.formats) {
                s.put<uint64_t>(f.size());
                s.put_text(f);
            }
        }
    }
    static void put_sized4(ByteSink& s, const std::string& t) {
        s.put<uint32_t>(static_cast<uint32_t>(t.size()));
        s.put_text(t);
    }
    static void put_sized8(ByteSink& s, const std::string& t) {
        s.put<uint64_t>(t.size());
        s.put_text(t);
    }

    void put_file_header(ByteSink& s) const {
        s.put_bytes(kMagic);
        s.put_text("tracing");
        s.put_cstring(cfg.file_version >= 7 ? "7" : "6");
        s.put<uint8_t>(cfg.big_endian ? 1 : 0);
        s.put<uint8_t>(static_cast<uint8_t>(cfg.long_size));
        s.put<uint32_t>(cfg.page_size);
    }

    Status start_v7() {
        ByteSink s(cfg.big_endian);
        put_file_header(s);
        const Compression c = cfg.compression;
        s.put_cstring(compression_name(c));
        s.put_cstring(compression_library_version(c));
        s.put<uint64_t>(0);  // first options section, patched by finish()
        return write(s);
    }

    Status start_v6() {
        ByteSink s(cfg.big_endian);
        put_file_header(s);
        put_header_info(s);
        put_ftrace(s);
        put_events(s);
        put_sized4(s, meta.kallsyms);
        put_sized4(s, meta.printk_formats);
        put_sized8(s, meta.saved_cmdlines);
        const uint32_t header_cpus = meta.cpu_count ? meta.cpu_count : cpu_count();
        s.put<uint32_t>(header_cpus);
        // The CPU tables have as many entries as the reader will expect: CPUCOUNT wins.
        v6_ncpu = meta.options.cpu_count.value_or(header_cpus);
        for (const auto& b : buffers)
            for (uint32_t c : b.cpus)
                if (c >= v6_ncpu) {
                    return Error(Errc::invalid_argument, "v6: CPU " + std::to_string(c) + " of buffer \"" +
                                                             b.name + "\" is not below the CPU count " +
                                                             std::to_string(v6_ncpu))
                        .in_file(path);
                }
        s.put_text(std::string_view("options  \0", 10));
        encode_options(meta.options, s);
        v6_option_patch.assign(buffers.size(), 0);
        for (size_t i = 0; i < buffers.size(); ++i) {
            if (buffers[i].name.empty()) continue;
            s.put<uint16_t>(static_cast<uint16_t>(OptionId::buffer));
            s.put<uint32_t>(static_cast<uint32_t>(8 + buffers[i].name.size() + 1));
            v6_option_patch[i] = pos + s.size();
            s.put<uint64_t>(0);
            s.put_cstring(buffers[i].name);
        }
        s.put<uint16_t>(0);
        if (auto st = write(s); !st) return st;

        section_offset.assign(buffers.size(), 0);
        // The top buffer's table comes first (the file's own "flyrecord"), then the instances'.
        auto table = [&](size_t b) -> Status {
            section_offset[b] = pos;
            ByteSink t(cfg.big_endian);
            t.put_text(std::string_view("flyrecord\0", 10));
            for (uint32_t i = 0; i < v6_ncpu; ++i) {
                t.put<uint64_t>(0);
                t.put<uint64_t>(0);
            }
            if (b == top_index() && meta.options.trace_clock) {
                put_sized8(t, meta.flyrecord_clock ? *meta.flyrecord_clock : *meta.options.trace_clock);
            }
            return write(t);
        };
        if (top_index() == SIZE_MAX) {
            // Every v6 file has a top flyrecord table, even when only instances hold data.
            ByteSink t(cfg.big_endian);
            t.put_text(std::string_view("flyrecord\0", 10));
            for (uint32_t i = 0; i < 2 * v6_ncpu; ++i) t.put<uint64_t>(0);
            if (meta.options.trace_clock)
                put_sized8(t, meta.flyrecord_clock ? *meta.flyrecord_clock : *meta.options.trace_clock);
            if (auto st = write(t); !st) return st;
        } else if (auto st = table(top_index()); !st) {
            return st;
        }
        for (size_t b = 0; b < buffers.size(); ++b) {
            if (b == top_index()) continue;
            if (auto st = patch<uint64_t>(v6_option_patch[b], pos); !st) return st;
            if (auto st = table(b); !st) return st;
        }
        return {};
    }

    size_t top_index() const {
        for (size_t i = 0; i < buffers.size(); ++i)
            if (buffers[i].name.empty()) return i;
        return SIZE_MAX;
    }

    Status open_buffer(size_t b) {
        opened[b] = true;
        if (cfg.file_version < 7) return {};
        section_offset[b] = pos;
        ByteSink h(cfg.big_endian);
        h.put<uint16_t>(static_cast<uint16_t>(OptionId::buffer));
        h.put<uint16_t>(compressed() ? 1 : 0);
        // trace-cmd names buffer sections "buffer flyrecord NAME".
        h.put<uint32_t>(string_id("buffer flyrecord " + buffers[b].name));
        h.put<uint64_t>(0);  // patched by close_buffer
        return write(h);
    }

    Status close_buffer(size_t b) {
        closed[b] = true;
        if (cfg.file_version < 7) return {};
        return patch<uint64_t>(section_offset[b] + 8, pos - section_offset[b] - 16);
    }

    Status flush_chunk() {
        if (pending.empty()) return {};
        if (auto st = comp->compress(pending, zout); !st) return Error(std::move(st).error()).in_file(path);
        ByteSink h(cfg.big_endian);
        h.put<uint32_t>(static_cast<uint32_t>(zout.size()));
        h.put<uint32_t>(static_cast<uint32_t>(pending.size()));
        if (auto st = write(h); !st) return st;
        if (auto st = write(zout); !st) return st;
        out[cur_buffer][cur_cpu].size += 8 + zout.size();
        ++chunks;
        pending.clear();
        return {};
    }

    // The metadata sections, in trace-cmd's order; OFFSETS and EXTRA (several of one id are kept,
    // in order) get where each went.
    Status write_metadata_sections(std::map<OptionId, uint64_t>& offsets,
                                   std::vector<std::pair<OptionId, uint64_t>>& extra) {
        const bool z = compressed();
        auto section = [&](OptionId id, const char* desc, auto&& fill) -> Status {
            ByteSink p(cfg.big_endian);
            fill(p);
            auto at = write_section(id, desc, z, p);
            if (!at) return std::move(at).error();
            offsets[id] = *at;
            return {};
        };
        if (auto st = section(OptionId::header_info, "headers", [&](ByteSink& p) { put_header_info(p); });
            !st)
            return st;
        if (auto st = section(OptionId::ftrace_events, "ftrace events", [&](ByteSink& p) { put_ftrace(p); });
            !st)
            return st;
        if (auto st = section(OptionId::event_formats, "events format", [&](ByteSink& p) { put_events(p); });
            !st)
            return st;
        if (auto st =
                section(OptionId::kallsyms, "kallsyms", [&](ByteSink& p) { put_sized4(p, meta.kallsyms); });
            !st)
            return st;
        if (auto st =
                section(OptionId::printk, "printk", [&](ByteSink& p) { put_sized4(p, meta.printk_formats); });
            !st)
            return st;
        // trace-cmd 3.4's order: BTF (and the other new sections) between printk and cmdlines.
        for (const ExtraSection& x : meta.extra_sections) {
            ByteSink p(cfg.big_endian);
            p.put_text(x.data);
            auto at = write_section(x.id, x.description.c_str(), z, p);
            if (!at) return std::move(at).error();
            extra.emplace_back(x.id, *at);
        }
        if (auto st = section(OptionId::cmdlines, "command lines",
                              [&](ByteSink& p) { put_sized8(p, meta.saved_cmdlines); });
            !st)
            return st;
        return {};
    }

    // The options section's payload: the offsets of the metadata sections, the typed options, a
    // BUFFER option per buffer, and DONE (no further options section).
    ByteSink options_payload(const std::map<OptionId, uint64_t>& offsets,
                             const std::vector<std::pair<OptionId, uint64_t>>& extra) const {
        ByteSink o(cfg.big_endian);
        auto put_offset = [&](OptionId id, uint64_t off) {
            ByteSink v(cfg.big_endian);
            v.put<uint64_t>(off);
            encode_option(o, static_cast<uint16_t>(id), v.buffer());
        };
        for (const auto& [id, off] : offsets) put_offset(id, off);
        for (const auto& [id, off] : extra) put_offset(id, off);
        TraceDatOptions opts = meta.options;
        if (!opts.cpu_count) opts.cpu_count = cpu_count();
        encode_options(opts, o);
        for (size_t b = 0; b < buffers.size(); ++b) {
            ByteSink v(cfg.big_endian);
            v.put<uint64_t>(section_offset[b]);
            v.put_cstring(buffers[b].name);
            v.put_cstring(buffers[b].clock);
            v.put<uint32_t>(page_size_of(b));
            v.put<uint32_t>(static_cast<uint32_t>(buffers[b].cpus.size()));
            for (size_t i = 0; i < buffers[b].cpus.size(); ++i) {
                v.put<uint32_t>(buffers[b].cpus[i]);
                v.put<uint64_t>(out[b][i].offset);
                v.put<uint64_t>(out[b][i].size);
            }
            encode_option(o, static_cast<uint16_t>(OptionId::buffer), v.buffer());
        }
        {
            ByteSink v(cfg.big_endian);
            v.put<uint64_t>(0);  // no further options section
            encode_option(o, static_cast<uint16_t>(OptionId::done), v.buffer());
        }
        return o;
    }

    Status v7_finish() {
        for (size_t b = 0; b < buffers.size(); ++b) {
            if (!opened[b])
                if (auto st = open_buffer(b); !st) return st;
            if (!closed[b])
                if (auto st = close_buffer(b); !st) return st;
        }
        std::map<OptionId, uint64_t> offsets;
        std::vector<std::pair<OptionId, uint64_t>> extra;
        if (auto st = write_metadata_sections(offsets, extra); !st) return st;
        const ByteSink o = options_payload(offsets, extra);
        const bool z = compressed();
        string_id("strings");
        // Options stay uncompressed, as trace-cmd writes them.
        auto opt_at = write_section(OptionId::done, "options", false, o);
        if (!opt_at) return std::move(opt_at).error();
        ByteSink sp(cfg.big_endian);
        sp.put_text(strings);
        if (auto at = write_section(OptionId::strings, "strings", z, sp); !at) return std::move(at).error();
        // The options offset is the last field of the file header.
        const uint64_t header_len = 3 + 7 + 2 + 1 + 1 + 4 + std::strlen(compression_name(cfg.compression)) +
                                    1 + compression_library_version(cfg.compression).size() + 1;
        return patch<uint64_t>(header_len, *opt_at);
    }
};

TraceDatWriter::TraceDatWriter(std::unique_ptr<State> s) : s_(std::move(s)) {}

TraceDatWriter::~TraceDatWriter() {
    if (s_ && s_->fd >= 0) ::close(s_->fd);
}

TraceMetadata& TraceDatWriter::metadata() noexcept {
    return s_->meta;
}

Expected<std::unique_ptr<TraceDatWriter>> TraceDatWriter::create(const std::string& path, WriterConfig cfg,
                                                                 TraceMetadata meta,
                                                                 std::vector<BufferSpec> buffers) {
    auto bad = [&](const std::string& m) { return Error(Errc::invalid_argument, m).in_file(path); };
    if (cfg.file_version != 6 && cfg.file_version != 7) return bad("file version must be 6 or 7");
    if (cfg.long_size != 4 && cfg.long_size != 8) return bad("long size must be 4 or 8");
    if (cfg.page_size == 0 || (cfg.page_size & (cfg.page_size - 1)) != 0)
        return bad("page size must be a power of two");
    if (cfg.chunk_pages == 0) return bad("chunk_pages must be at least 1");
    if (cfg.file_version == 6) cfg.compression = Compression::none;
    std::set<std::string> names;
    for (size_t i = 0; i < buffers.size(); ++i) {
        const auto& b = buffers[i];
        if (!names.insert(b.name).second) return bad("buffer \"" + b.name + "\" listed twice");
        if (b.name.empty() && i != 0) return bad("the top buffer must come first");
        const uint32_t ps = b.page_size ? b.page_size : cfg.page_size;
        if (ps % 8 != 0) return bad("buffer \"" + b.name + "\": page size must be a multiple of 8");
        if (cfg.file_version == 6 && ps != cfg.page_size)
            return bad("v6 files have one page size for all buffers");
        if (uint64_t(ps) * cfg.chunk_pages > (1u << 30)) return bad("chunk too large");
    }
    auto s = std::make_unique<State>();
    s->path = path;
    s->cfg = cfg;
    s->meta = std::move(meta);
    s->buffers = std::move(buffers);
    for (const char* d : kDescriptions) s->string_id(d);
    if (s->compressed()) s->comp = Compressor::create(cfg.compression, cfg.compression_level);
    s->out.resize(s->buffers.size());
    for (size_t b = 0; b < s->buffers.size(); ++b) s->out[b].resize(s->buffers[b].cpus.size());
    s->section_offset.assign(s->buffers.size(), 0);
    s->opened.assign(s->buffers.size(), false);
    s->closed.assign(s->buffers.size(), false);
    s->file = std::make_unique<AtomicOutput>(path);
    if (Status st = s->file->create(); !st) return std::move(st).error();
    s->fd = ::open(s->file->temp_path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (s->fd < 0)
        return Error(Errc::io, std::string("cannot create: ") + std::strerror(errno)).in_file(path);
    Status st = cfg.file_version >= 7 ? s->start_v7() : s->start_v6();
    if (!st) return std::move(st).error();
    return std::unique_ptr<TraceDatWriter>(new TraceDatWriter(std::move(s)));
}

Status TraceDatWriter::begin_cpu() {
    State& s = *s_;
    if (s.failed || s.finished)
        return Error(Errc::invalid_argument, "writer is finished or failed").in_file(s.path);
    if (s.in_cpu) return Error(Errc::invalid_argument, "begin_cpu() before end_cpu()").in_file(s.path);
    while (s.next_buffer < s.buffers.size() && s.next_cpu >= s.buffers[s.next_buffer].cpus.size()) {
        if (s.opened[s.next_buffer] && !s.closed[s.next_buffer])
            if (auto st = s.close_buffer(s.next_buffer); !st) return st;
        ++s.next_buffer;
        s.next_cpu = 0;
    }
    if (s.next_buffer >= s.buffers.size()) {
        return Error(Errc::invalid_argument, "every CPU of the layout was already written").in_file(s.path);
    }
    // Buffers before this one that had no CPUs still need their (empty) section, in order.
    for (size_t b = 0; b <= s.next_buffer; ++b) {
        if (!s.opened[b])
            if (auto st = s.open_buffer(b); !st) return st;
        if (b < s.next_buffer && !s.closed[b])
            if (auto st = s.close_buffer(b); !st) return st;
    }
    s.cur_buffer = s.next_buffer;
    s.cur_cpu = s.next_cpu++;
    s.in_cpu = true;
    // CPU data starts page aligned, as trace-cmd lays it out (readers may mmap it).
    if (auto st = s.pad_to(s.cfg.page_size); !st) return st;
    s.out[s.cur_buffer][s.cur_cpu].offset = s.pos;
    s.out[s.cur_buffer][s.cur_cpu].size = 0;
    if (s.compressed()) {
        s.chunks = 0;
        s.count_pos = s.pos;
        s.pending.clear();
        ByteSink c(s.cfg.big_endian);
        c.put<uint32_t>(0);
        if (auto st = s.write(c); !st) return st;
    }
    return {};
}

Status TraceDatWriter::write_pages(std::span<const uint8_t> pages) {
    State& s = *s_;
    if (!s.in_cpu)
        return Error(Errc::invalid_argument, "write_pages() outside begin_cpu()/end_cpu()").in_file(s.path);
    const uint32_t ps = s.page_size_of(s.cur_buffer);
    if (pages.size() % ps != 0) {
        return Error(Errc::invalid_argument, std::to_string(pages.size()) +
                                                 " bytes is not a whole number of " + std::to_string(ps) +
                                                 "-byte pages")
            .in_file(s.path);
    }
    if (!s.compressed()) {
        if (auto st = s.write(pages); !st) return st;
        s.out[s.cur_buffer][s.cur_cpu].size += pages.size();
        return {};
    }
    const size_t chunk = size_t(ps) * s.cfg.chunk_pages;
    while (!pages.empty()) {
        const size_t take = std::min(chunk - s.pending.size(), pages.size());
        s.pending.insert(s.pending.end(), pages.begin(), pages.begin() + static_cast<std::ptrdiff_t>(take));
        pages = pages.subspan(take);
        if (s.pending.size() == chunk)
            if (auto st = s.flush_chunk(); !st) return st;
    }
    return {};
}

Status TraceDatWriter::end_cpu() {
    State& s = *s_;
    if (!s.in_cpu) return Error(Errc::invalid_argument, "end_cpu() without begin_cpu()").in_file(s.path);
    s.in_cpu = false;
    if (s.compressed()) {
        if (auto st = s.flush_chunk(); !st) return st;
        if (auto st = s.patch<uint32_t>(s.count_pos, s.chunks); !st) return st;
    }
    if (s.cfg.file_version < 7) {
        const auto& o = s.out[s.cur_buffer][s.cur_cpu];
        const uint64_t entry =
            s.section_offset[s.cur_buffer] + 10 + 16 * uint64_t(s.buffers[s.cur_buffer].cpus[s.cur_cpu]);
        if (auto st = s.patch<uint64_t>(entry, o.offset); !st) return st;
        if (auto st = s.patch<uint64_t>(entry + 8, o.size); !st) return st;
    }
    return {};
}

Status TraceDatWriter::finish() {
    State& s = *s_;
    if (s.failed || s.finished)
        return Error(Errc::invalid_argument, "writer is finished or failed").in_file(s.path);
    if (s.in_cpu)
        if (auto st = end_cpu(); !st) return st;
    for (size_t b = 0; b < s.buffers.size(); ++b) {
        const size_t done =
            b < s.next_buffer ? s.buffers[b].cpus.size() : (b == s.next_buffer ? s.next_cpu : 0);
        if (done < s.buffers[b].cpus.size()) {
            return Error(Errc::invalid_argument, "buffer \"" + s.buffers[b].name + "\": CPU " +
                                                     std::to_string(s.buffers[b].cpus[done]) +
                                                     " was never written")
                .in_file(s.path);
        }
    }
    if (s.cfg.file_version >= 7) {
        if (auto st = s.v7_finish(); !st) return st;
    } else if (auto st = s.pad_to(s.cfg.page_size); !st) {
        // v6 readers map whole pages: end the file on a page boundary.
        return st;
    }
    s.finished = true;
    if (::close(s.fd) != 0) {
        s.fd = -1;
        return s.io_error("cannot close");
    }
    s.fd = -1;
    return s.file->commit();
}

}  // namespace ringscope::io
