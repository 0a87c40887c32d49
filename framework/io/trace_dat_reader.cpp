#include "framework/io/trace_dat_reader.hpp"

#include "framework/io/byte_cursor.hpp"
#include "framework/io/compression.hpp"
#include "framework/io/file_cursor.hpp"
#include "framework/io/option_codec.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include <ringscope/text_escape.hpp>

namespace ringscope::io {

struct detail::ReaderState {
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

namespace {

constexpr uint8_t kMagic[3] = {0x17, 0x08, 0x44};
constexpr uint16_t kSectionCompressed = 1;
// Refuse declared sizes no real file has, before allocating for them. The biggest section is
// KALLSYMS: ~5.4 MB here, tens of MB with many modules.
constexpr uint64_t kMaxSectionSize = uint64_t(256) << 20;
// Sections that declare more are decompressed into memory that grows with the output.
constexpr uint64_t kTrustedSectionSize = uint64_t(16) << 20;

std::string to_string(std::string_view v) {
    return std::string(v);
}

// ---- section content parsers (shared by v6 inline data and v7 section bodies) ----

template <class C>
Status expect_tag(C& c, const char* tag, size_t len) {
    auto b = c.bytes(len);
    if (!b) return std::move(b).error();
    if (std::memcmp(b->data(), tag, len) != 0) {
        return Error(Errc::corrupt, std::string("expected \"") + tag + "\"")
            .at_offset(static_cast<int64_t>(c.offset() - len));
    }
    return {};
}

// SOURCE, when given, holds the bytes C reads: the text moves out of it rather than being copied.
template <class C, class Size>
Status read_sized_text(C& c, std::string& out, std::string* source = nullptr) {
    auto n = c.template read<Size>();
    if (!n) return std::move(n).error();
    auto b = c.bytes(*n);
    if (!b) return std::move(b).error();
    const auto text = reinterpret_cast<uintptr_t>(b->data());
    const auto first = source ? reinterpret_cast<uintptr_t>(source->data()) : 0;
    if (source && text >= first && text + b->size() <= first + source->size()) {
        out = std::move(*source);
        out.erase(0, static_cast<size_t>(text - first));
        out.resize(b->size());
        return {};
    }
    out.assign(reinterpret_cast<const char*>(b->data()), b->size());
    return {};
}

template <class C>
Status parse_header_info(C& c, TraceMetadata& m) {
    if (auto s = expect_tag(c, "header_page", 12); !s) return s;
    if (auto s = read_sized_text<C, uint64_t>(c, m.header_page); !s) return s;
    if (auto s = expect_tag(c, "header_event", 13); !s) return s;
    return read_sized_text<C, uint64_t>(c, m.header_event);
}

template <class C>
Status parse_ftrace_formats(C& c, TraceMetadata& m) {
    auto n = c.template read<uint32_t>();
    if (!n) return std::move(n).error();
    if (*n > c.remaining() / 8)
        return c.error(Errc::corrupt, "ftrace format count " + std::to_string(*n) + " too large");
    m.ftrace_formats.resize(*n);
    for (auto& f : m.ftrace_formats)
        if (auto s = read_sized_text<C, uint64_t>(c, f); !s) return s;
    return {};
}

template <class C>
Status parse_event_formats(C& c, TraceMetadata& m) {
    auto n = c.template read<uint32_t>();
    if (!n) return std::move(n).error();
    if (*n > c.remaining() / 5)
        return c.error(Errc::corrupt, "event system count " + std::to_string(*n) + " too large");
    m.event_systems.resize(*n);
    for (auto& sys : m.event_systems) {
        auto name = c.cstring();
        if (!name) return std::move(name).error();
        sys.system = to_string(*name);
        auto count = c.template read<uint32_t>();
        if (!count) return std::move(count).error();
        if (*count > c.remaining() / 8) {
            return c.error(Errc::corrupt, "event count " + std::to_string(*count) + " of system " +
                                              sys.system + " too large");
        }
        sys.formats.resize(*count);
        for (auto& f : sys.formats)
            if (auto s = read_sized_text<C, uint64_t>(c, f); !s) return s;
    }
    return {};
}

// "[clock]" inside a trace_clock text.
std::string selected_clock(const std::string& text) {
    auto open = text.find('[');
    if (open == std::string::npos) return "";
    auto close = text.find(']', open);
    if (close == std::string::npos) return "";
    return text.substr(open + 1, close - open - 1);
}

class Parser {
  public:
    Parser(detail::ReaderState& s, int threads) : s_(s), f_(*s.file), threads_(threads) {}

    Status run() {
        if (auto st = parse_file_header(); !st) return st;
        if (s_.version >= 7) return parse_v7();
        return parse_v6();
    }

    // The payload of the section at OFF (of id ID), decompressed. Reads only what open() checked
    // and the file: safe on the state of an opened reader.
    Expected<std::string> section_payload(uint64_t off, uint16_t id, const char* what) {
        auto body = section_body(off, id, what);
        if (!body) return std::move(body).error();
        if (body->decompressed) return std::move(body->decompressed_bytes);
        return std::string(reinterpret_cast<const char*>(body->data.data()), body->data.size());
    }

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

    Status parse_file_header() {
        FileCursor c(f_, 0, false, "file header");
        auto magic = c.bytes(3);
        if (!magic || std::memcmp(magic->data(), kMagic, 3) != 0) {
            return Error(Errc::bad_magic, "not a trace-cmd trace.dat file (bad magic)").at_offset(0);
        }
        auto tracing = c.bytes(7);
        if (!tracing || std::memcmp(tracing->data(), "tracing", 7) != 0) {
            return Error(Errc::bad_magic, "not a trace-cmd trace.dat file (no \"tracing\" after the magic)")
                .at_offset(3);
        }
        auto ver = c.cstring();
        if (!ver) return std::move(ver).error();
        const std::string vs = to_string(*ver);
        if (vs != "6" && vs != "7") {
            return Error(Errc::bad_version, "unsupported file version \"" + quoted_for_message(vs) +
                                                "\" (this build reads 6 and 7)")
                .at_offset(10);
        }
        s_.version = vs == "6" ? 6 : 7;
        auto endian = c.read<uint8_t>();
        if (!endian) return std::move(endian).error();
        if (*endian > 1)
            return Error(Errc::corrupt, "bad endianness flag " + std::to_string(*endian)).at_offset(12);
        s_.big = *endian == 1;
        auto ls = c.read<uint8_t>();
        if (!ls) return std::move(ls).error();
        if (*ls != 4 && *ls != 8)
            return Error(Errc::corrupt, "bad long size " + std::to_string(*ls)).at_offset(13);
        s_.long_size = *ls;
        FileCursor c2(f_, c.offset(), s_.big, "file header");
        auto ps = c2.read<uint32_t>();
        if (!ps) return std::move(ps).error();
        if (*ps == 0 || *ps > kMaxPageSize || (*ps & (*ps - 1)) != 0) {
            return Error(Errc::corrupt, "bad page size " + std::to_string(*ps)).at_offset(14);
        }
        s_.page_size = *ps;
        if (s_.version >= 7) {
            auto zname = c2.cstring();
            if (!zname) return std::move(zname).error();
            auto comp = parse_compression(to_string(*zname));
            if (!comp) return std::move(comp).error().at_offset(18);
            s_.compression = *comp;
            auto zver = c2.cstring();
            if (!zver) return std::move(zver).error();
            s_.zversion = to_string(*zver);
            auto opt = c2.read<uint64_t>();
            if (!opt) return std::move(opt).error();
            options_start_ = *opt;
        }
        header_end_ = c2.offset();
        return {};
    }

    // ---------------- v7 ----------------

    // The bytes of a section (decompressed when its flag says so). EXPECTED_ID < 0: any id. DEC:
    // the decompressor to use (made when needed; null: this parser's).
    Expected<Body> section_body(uint64_t off, int expected_id, const char* what, SectionHeader* out = nullptr,
                                std::unique_ptr<Decompressor>* dec = nullptr) {
        if (off > f_.size() || f_.size() - off < 16) {
            return Error(Errc::truncated, std::string(what) + ": section header past the end of the file")
                .at_offset(static_cast<int64_t>(off));
        }
        std::vector<uint8_t> scratch;
        auto hb = f_.read(off, 16, scratch);
        if (!hb) return std::move(hb).error();
        SectionHeader h{
            load_endian<uint16_t>(hb->data(), s_.big), load_endian<uint16_t>(hb->data() + 2, s_.big),
            load_endian<uint32_t>(hb->data() + 4, s_.big), load_endian<uint64_t>(hb->data() + 8, s_.big)};
        if (expected_id >= 0 && h.id != expected_id) {
            return Error(Errc::corrupt, std::string(what) + ": expected section id " +
                                            std::to_string(expected_id) + ", found " + std::to_string(h.id))
                .at_offset(static_cast<int64_t>(off));
        }
        if (h.size > f_.size() - off - 16) {
            return Error(Errc::truncated, std::string(what) + ": section of " + std::to_string(h.size) +
                                              " bytes runs past the end of the file")
                .at_offset(static_cast<int64_t>(off));
        }
        if (out) *out = h;
        Body body;
        body.base = off + 16;
        if (!(h.flags & kSectionCompressed)) {
            auto b = f_.read(off + 16, static_cast<size_t>(h.size), body.owned);
            if (!b) return std::move(b).error();
            body.data = *b;
            return Expected<Body>(std::move(body));
        }
        if (s_.compression == Compression::none) {
            return Error(Errc::corrupt,
                         std::string(what) + ": compressed section in a file without compression")
                .at_offset(static_cast<int64_t>(off));
        }
        if (h.size < 8) {
            return Error(Errc::corrupt, std::string(what) + ": compressed section too short for its sizes")
                .at_offset(static_cast<int64_t>(off));
        }
        auto sb = f_.read(off + 16, 8, scratch);
        if (!sb) return std::move(sb).error();
        const uint32_t zsize = load_endian<uint32_t>(sb->data(), s_.big);
        const uint32_t usize = load_endian<uint32_t>(sb->data() + 4, s_.big);
        if (zsize > h.size - 8) {
            return Error(Errc::corrupt, std::string(what) + ": compressed size " + std::to_string(zsize) +
                                            " larger than the section")
                .at_offset(static_cast<int64_t>(off + 16));
        }
        if (usize > kMaxSectionSize || !plausible_expansion(zsize, usize)) {
            return Error(Errc::corrupt,
                         std::string(what) + ": uncompressed size " + std::to_string(usize) + " too large")
                .at_offset(static_cast<int64_t>(off + 16));
        }
        auto zb = f_.read(off + 24, zsize, scratch);
        if (!zb) return std::move(zb).error();
        std::unique_ptr<Decompressor>& d = dec ? *dec : decomp_;
        if (!d) d = Decompressor::create(s_.compression);
        // Sizes no real section reaches are decompressed as the output comes, so a size the data
        // does not back fails before it is allocated.
        Status st = Status::success();
        if (usize <= kTrustedSectionSize) {
            body.decompressed_bytes.resize(usize);
            st = d->decompress(
                *zb, std::span<uint8_t>(reinterpret_cast<uint8_t*>(body.decompressed_bytes.data()), usize));
        } else {
            st = d->decompress_growing(*zb, usize, body.decompressed_bytes);
        }
        if (!st) {
            return Error(Errc::decompress, std::string(what) + ": " + st.error().message())
                .at_offset(static_cast<int64_t>(off + 16));
        }
        body.base = off;
        body.decompressed = true;
        return Expected<Body>(std::move(body));
    }

    // libtracecmd finds STRINGS sections by walking section headers from the end of the file
    // header; do the same (and record every section for dump-style users).
    Status scan_sections() {
        uint64_t off = header_end_;
        std::vector<uint8_t> scratch;
        while (off <= f_.size() && f_.size() - off >= 16) {
            auto hb = f_.read(off, 16, scratch);
            if (!hb) return std::move(hb).error();
            SectionInfo si;
            si.id = load_endian<uint16_t>(hb->data(), s_.big);
            si.flags = load_endian<uint16_t>(hb->data() + 2, s_.big);
            const uint32_t desc = load_endian<uint32_t>(hb->data() + 4, s_.big);
            si.size = load_endian<uint64_t>(hb->data() + 8, s_.big);
            si.offset = off;
            if (si.size > f_.size() - off - 16) break;
            if (si.id == static_cast<uint16_t>(OptionId::strings)) {
                auto body = section_body(off, -1, "STRINGS section");
                if (!body) return std::move(body).error();
                const auto bytes = body->bytes();
                strings_.insert(strings_.end(), bytes.begin(), bytes.end());
            }
            descs_.push_back(desc);
            s_.sections.push_back(std::move(si));
            off += 16 + s_.sections.back().size;
        }
        for (size_t i = 0; i < s_.sections.size(); ++i) {
            const uint32_t d = descs_[i];
            if (d < strings_.size()) {
                const char* p = reinterpret_cast<const char*>(strings_.data()) + d;
                s_.sections[i].description.assign(p, strnlen(p, strings_.size() - d));
            }
        }
        return {};
    }

    Status parse_v7() {
        if (auto st = scan_sections(); !st) return st;
        std::set<uint64_t> seen;
        uint64_t off = options_start_;
        TraceDatOptions& opts = s_.meta.options;
        while (off != 0) {
            if (!seen.insert(off).second) {
                return Error(Errc::corrupt, "options sections form a loop")
                    .at_offset(static_cast<int64_t>(off));
            }
            auto body = section_body(off, static_cast<int>(OptionId::done), "options section");
            if (!body) return std::move(body).error();
            ByteCursor c = body->cursor(s_.big, "option");
            bool done = false;
            while (!done) {
                if (c.at_end()) return c.error(Errc::corrupt, "options section ends without a DONE option");
                const uint64_t opt_off = c.offset();
                auto id = c.read<uint16_t>();
                auto size = id ? c.read<uint32_t>() : Expected<uint32_t>(id.error());
                if (!size) return c.error(Errc::corrupt, "truncated option header");
                // Payload offset in the file (the section's offset when it was decompressed).
                const uint64_t payload_off = body->decompressed ? body->base : opt_off + 6;
                auto data = c.bytes(*size);
                if (!data) {
                    return c.error(Errc::corrupt, "option " + std::to_string(*id) + " declares " +
                                                      std::to_string(*size) + " bytes, the section has " +
                                                      std::to_string(c.remaining()));
                }
                switch (static_cast<OptionId>(*id)) {
                    case OptionId::done:
                        if (data->size() < 8) {
                            return Error(Errc::corrupt, "option DONE shorter than 8 bytes")
                                .at_offset(static_cast<int64_t>(opt_off));
                        }
                        off = load_endian<uint64_t>(data->data(), s_.big);
                        done = true;
                        break;
                    case OptionId::buffer:
                    case OptionId::buffer_text:
                        if (auto st = parse_buffer_option_v7(*id, *data, payload_off); !st) return st;
                        break;
                    case OptionId::header_info:
                    case OptionId::ftrace_events:
                    case OptionId::event_formats:
                    case OptionId::kallsyms:
                    case OptionId::printk:
                    case OptionId::cmdlines:
                        if (data->size() < 8) {
                            return Error(Errc::corrupt, "section offset option " + std::to_string(*id) +
                                                            " shorter than 8 bytes")
                                .at_offset(static_cast<int64_t>(opt_off));
                        }
                        section_offsets_[*id] = load_endian<uint64_t>(data->data(), s_.big);
                        break;
                    default:
                        if (auto st = decode_option(*id, *data, payload_off, s_.big, opts); !st) return st;
                        break;
                }
            }
        }
        if (auto st = read_v7_metadata(); !st) return st;
        s_.meta.cpu_count = opts.cpu_count.value_or(0);
        return finish_buffers();
    }

    Status parse_buffer_option_v7(uint16_t id, std::span<const uint8_t> data, uint64_t off) {
        const char* what =
            id == static_cast<uint16_t>(OptionId::buffer) ? "option BUFFER" : "option BUFFER_TEXT";
        ByteCursor c(data, off, s_.big, what);
        BufferInfo b;
        auto corrupt = [&](const std::string& m) { return c.error(Errc::corrupt, m); };
        auto sec = c.read<uint64_t>();
        if (!sec) return corrupt("truncated section offset");
        b.section_offset = *sec;
        auto name = c.cstring();
        if (!name) return corrupt("unterminated buffer name");
        b.name = to_string(*name);
        auto clock = c.cstring();
        if (!clock) return corrupt("unterminated clock name");
        b.clock = to_string(*clock);
        b.page_size = s_.page_size;
        if (id == static_cast<uint16_t>(OptionId::buffer_text)) {
            b.latency = true;
        } else {
            // trace-cmd 3.1 added the sub-buffer size before the CPU count; earlier v7 writers did not
            // write it. The remaining length tells which: 8 + 20n bytes with it, 4 + 20n without.
            if (c.remaining() % 20 == 8) {
                b.page_size = *c.read<uint32_t>();
                if (b.page_size == 0 || b.page_size > kMaxPageSize || b.page_size % 4 != 0) {
                    return corrupt("bad page size " + std::to_string(b.page_size));
                }
            }
            auto n = c.read<uint32_t>();
            if (!n) return corrupt("truncated CPU count");
            if (*n > c.remaining() / 20) {
                return corrupt("CPU count " + std::to_string(*n) + " does not fit the option (" +
                               std::to_string(c.remaining()) + " bytes left)");
            }
            b.cpus.resize(*n);
            for (auto& cpu : b.cpus) {
                cpu.cpu = *c.read<uint32_t>();
                // CPU ids index per-CPU tables (plugins' too)
                if (cpu.cpu >= kMaxCpus) {
                    return Error(Errc::corrupt, std::string(what) + ": CPU id " + std::to_string(cpu.cpu) +
                                                    " is not below " + std::to_string(kMaxCpus))
                        .at_offset(static_cast<int64_t>(c.offset() - 4));
                }
                cpu.offset = *c.read<uint64_t>();
                cpu.size = *c.read<uint64_t>();
            }
        }
        // The buffer's section says whether its CPU data is compressed.
        SectionHeader h{};
        auto body_check = section_header_at(b.section_offset,
                                            b.latency ? OptionId::buffer_text : OptionId::buffer, what, h);
        if (!body_check) return body_check;
        b.compressed = (h.flags & kSectionCompressed) != 0;
        if (b.compressed && s_.compression == Compression::none) {
            return Error(Errc::corrupt,
                         std::string(what) + ": compressed buffer in a file without compression")
                .at_offset(static_cast<int64_t>(b.section_offset));
        }
        if (b.name.empty() && !top_) {
            top_ = std::move(b);
        } else if (!b.name.empty()) {
            instances_.push_back(std::move(b));
        }
        return {};
    }

    Status section_header_at(uint64_t off, OptionId expected, const char* what, SectionHeader& h) {
        if (off > f_.size() || f_.size() - off < 16) {
            return Error(Errc::corrupt, std::string(what) + ": section offset " + std::to_string(off) +
                                            " past the end of the file")
                .at_offset(static_cast<int64_t>(off));
        }
        std::vector<uint8_t> scratch;
        auto hb = f_.read(off, 16, scratch);
        if (!hb) return std::move(hb).error();
        h = SectionHeader{
            load_endian<uint16_t>(hb->data(), s_.big), load_endian<uint16_t>(hb->data() + 2, s_.big),
            load_endian<uint32_t>(hb->data() + 4, s_.big), load_endian<uint64_t>(hb->data() + 8, s_.big)};
        if (h.id != static_cast<uint16_t>(expected)) {
            return Error(Errc::corrupt, std::string(what) + ": section at its offset has id " +
                                            std::to_string(h.id) + ", expected " +
                                            std::to_string(static_cast<int>(expected)))
                .at_offset(static_cast<int64_t>(off));
        }
        return {};
    }

    Status read_v7_metadata() {
        // With threads to spare, the KALLSYMS section (~5 MB of text) is read on a thread of its
        // own while the others are; the error is still that of the first section in file order
        // that fails. The sections fill different members of the metadata.
        constexpr auto kKallsyms = static_cast<uint16_t>(OptionId::kallsyms);
        std::thread kallsyms;
        Status kallsyms_status;
        std::unique_ptr<Decompressor> kallsyms_dec;
        const auto ks = section_offsets_.find(kKallsyms);
        if (threads_ > 1 && ks != section_offsets_.end()) {
            try {
                kallsyms = std::thread([this, &kallsyms_status, &kallsyms_dec, off = ks->second] {
                    kallsyms_status = read_v7_section(kKallsyms, off, &kallsyms_dec);
                });
            } catch (const std::system_error&) {
                // No thread to be had: read in turn.
            }
        }
        // ST: where the sections read in turn stopped (ok: at the end), before section BEFORE.
        auto first_error = [&](Status st, uint16_t before) {
            if (!kallsyms.joinable()) return st;
            kallsyms.join();
            return kKallsyms < before && !kallsyms_status ? kallsyms_status : st;
        };
        for (const auto& [id, off] : section_offsets_) {
            if (id == kKallsyms && kallsyms.joinable()) continue;
            if (Status st = read_v7_section(id, off, nullptr); !st) return first_error(std::move(st), id);
        }
        return first_error(Status::success(), UINT16_MAX);
    }

    // Section ID at OFF into the metadata, with the decompressor in DEC (null: this parser's).
    Status read_v7_section(uint16_t id, uint64_t off, std::unique_ptr<Decompressor>* dec) {
        TraceMetadata& m = s_.meta;
        const char* what = "";
        switch (static_cast<OptionId>(id)) {
            case OptionId::header_info:
                what = "HEADER_INFO section";
                break;
            case OptionId::ftrace_events:
                what = "FTRACE_EVENTS section";
                break;
            case OptionId::event_formats:
                what = "EVENT_FORMATS section";
                break;
            case OptionId::kallsyms:
                what = "KALLSYMS section";
                break;
            case OptionId::printk:
                what = "PRINTK section";
                break;
            default:
                what = "CMDLINES section";
                break;
        }
        auto body = section_body(off, id, what, nullptr, dec);
        if (!body) return std::move(body).error();
        ByteCursor c = body->cursor(s_.big, what);
        switch (static_cast<OptionId>(id)) {
            case OptionId::header_info:
                return parse_header_info(c, m);
            case OptionId::ftrace_events:
                return parse_ftrace_formats(c, m);
            case OptionId::event_formats:
                return parse_event_formats(c, m);
            case OptionId::kallsyms:
                return read_sized_text<ByteCursor, uint32_t>(c, m.kallsyms, &body->decompressed_bytes);
            case OptionId::printk:
                return read_sized_text<ByteCursor, uint32_t>(c, m.printk_formats);
            default:
                return read_sized_text<ByteCursor, uint64_t>(c, m.saved_cmdlines);
        }
    }

    Status check_cpu_data(const BufferInfo& b) {
        for (const auto& cpu : b.cpus) {
            const uint64_t need = b.compressed ? 4 : cpu.size;
            if (cpu.size == 0 && !b.compressed) continue;
            if (cpu.offset > f_.size() || need > f_.size() - cpu.offset) {
                return Error(Errc::truncated, "buffer \"" + b.name + "\" CPU " + std::to_string(cpu.cpu) +
                                                  ": data of " + std::to_string(cpu.size) + " bytes at " +
                                                  std::to_string(cpu.offset) +
                                                  " runs past the end of the file (truncated?)")
                    .at_offset(static_cast<int64_t>(cpu.offset));
            }
        }
        return {};
    }

    // A page for every CPU with data, all read at once by the time merge: 16 CPUs of 64 MiB
    // pages took 1 GB.
    Status reserve_pages() {
        for (size_t bi = 0; bi < s_.buffers.size(); ++bi) {
            const BufferInfo& b = s_.buffers[bi];
            for (size_t ci = 0; ci < b.cpus.size(); ++ci) {
                if (b.latency || b.cpus[ci].size == 0) continue;
                if (!s_.reserve_reading(bi, ci, b.page_size)) {
                    return Error(Errc::corrupt, "buffer \"" + b.name + "\" CPU " +
                                                    std::to_string(b.cpus[ci].cpu) + ": a " +
                                                    std::to_string(b.page_size) + "-byte page for each of " +
                                                    std::to_string(b.cpus.size()) + " CPUs needs more than " +
                                                    std::to_string(kMaxReadingMemory >> 20) + " MiB")
                        .at_offset(static_cast<int64_t>(b.cpus[ci].offset));
                }
            }
        }
        return {};
    }

    Status finish_buffers() {
        if (!top_) {
            BufferInfo b;
            b.page_size = s_.page_size;
            if (s_.meta.options.trace_clock) b.clock = selected_clock(*s_.meta.options.trace_clock);
            top_ = std::move(b);
        }
        s_.buffers.push_back(std::move(*top_));
        for (auto& b : instances_) s_.buffers.push_back(std::move(b));
        for (const auto& b : s_.buffers)
            if (auto st = check_cpu_data(b); !st) return st;
        return reserve_pages();
    }

    // ---------------- v6 ----------------

    Status parse_v6() {
        TraceMetadata& m = s_.meta;
        FileCursor c(f_, header_end_, s_.big, "v6 header");
        if (auto st = parse_header_info(c, m); !st) return st;
        if (auto st = parse_ftrace_formats(c, m); !st) return st;
        if (auto st = parse_event_formats(c, m); !st) return st;
        if (auto st = read_sized_text<FileCursor, uint32_t>(c, m.kallsyms); !st) return st;
        if (auto st = read_sized_text<FileCursor, uint32_t>(c, m.printk_formats); !st) return st;
        if (auto st = read_sized_text<FileCursor, uint64_t>(c, m.saved_cmdlines); !st) return st;
        auto cpus = c.read<uint32_t>();
        if (!cpus) return std::move(cpus).error();
        if (*cpus > kMaxCpus) {
            return Error(Errc::corrupt,
                         "CPU count " + std::to_string(*cpus) + " is more than " + std::to_string(kMaxCpus))
                .at_offset(static_cast<int64_t>(c.offset() - 4));
        }
        m.cpu_count = *cpus;

        std::vector<std::pair<uint64_t, std::string>> v6_buffers;
        auto tag = read_tag(c);
        if (!tag) return std::move(tag).error();
        if (*tag == "options  ") {
            if (auto st = parse_v6_options(c, m.options, &v6_buffers); !st) return st;
            tag = read_tag(c);
            if (!tag) return std::move(tag).error();
        }
        const uint32_t ncpu = m.options.cpu_count.value_or(m.cpu_count);
        BufferInfo top;
        top.page_size = s_.page_size;
        if (auto st = parse_v6_data(c, *tag, ncpu, top, 0); !st) return st;
        if (!top.latency && m.options.trace_clock) {
            // trace-cmd stores the clock text after the CPU table when TRACECLOCK is set; a file
            // without it still reads (libtracecmd then falls back to "local").
            FileCursor t(f_, c.offset(), s_.big, "flyrecord trace clock");
            auto n = t.read<uint64_t>();
            if (n && *n <= t.remaining()) {
                auto b = t.bytes(*n);
                if (b) m.flyrecord_clock = std::string(reinterpret_cast<const char*>(b->data()), b->size());
            }
        }
        if (m.flyrecord_clock) top.clock = selected_clock(*m.flyrecord_clock);
        if (top.clock.empty() && m.options.trace_clock) top.clock = selected_clock(*m.options.trace_clock);
        s_.buffers.push_back(std::move(top));

        for (auto& [off, name] : v6_buffers) {
            FileCursor bc(f_, off, s_.big, "v6 buffer instance");
            if (off > f_.size())
                return bc.error(Errc::corrupt, "buffer \"" + name + "\" offset past the end of the file");
            auto t = read_tag(bc);
            if (!t) return std::move(t).error();
            if (*t == "options  ") {
                TraceDatOptions ignored;
                if (auto st = parse_v6_options(bc, ignored, nullptr); !st) return st;
                t = read_tag(bc);
                if (!t) return std::move(t).error();
            }
            BufferInfo b;
            b.name = name;
            b.page_size = s_.page_size;
            b.clock = s_.buffers[0].clock;
            b.section_offset = off;
            if (auto st = parse_v6_data(bc, *t, ncpu, b, s_.buffers.size()); !st) return st;
            s_.buffers.push_back(std::move(b));
        }
        for (const auto& b : s_.buffers)
            if (auto st = check_cpu_data(b); !st) return st;
        return reserve_pages();
    }

    Expected<std::string> read_tag(FileCursor& c) {
        auto b = c.bytes(10);
        if (!b) return std::move(b).error();
        return std::string(reinterpret_cast<const char*>(b->data()), 9);
    }

    Status parse_v6_options(FileCursor& c, TraceDatOptions& opts,
                            std::vector<std::pair<uint64_t, std::string>>* buffers) {
        for (;;) {
            const uint64_t opt_off = c.offset();
            auto id = c.read<uint16_t>();
            if (!id) return std::move(id).error();
            if (*id == 0) return {};
            auto size = c.read<uint32_t>();
            if (!size) return std::move(size).error();
            if (*size > c.remaining()) {
                return Error(Errc::corrupt, "option " + std::to_string(*id) + " declares " +
                                                std::to_string(*size) + " bytes, the file has " +
                                                std::to_string(c.remaining()) + " left")
                    .at_offset(static_cast<int64_t>(opt_off));
            }
            auto data = c.bytes(*size);
            if (!data) return std::move(data).error();
            if (*id == static_cast<uint16_t>(OptionId::buffer)) {
                ByteCursor bc(*data, c.offset() - *size, s_.big, "option BUFFER");
                auto off = bc.read<uint64_t>();
                auto name = off ? bc.cstring() : Expected<std::string_view>(off.error());
                if (!name) return bc.error(Errc::corrupt, "truncated v6 BUFFER option");
                if (buffers) buffers->emplace_back(*off, to_string(*name));
                continue;
            }
            if (auto st = decode_option(*id, *data, c.offset() - *size, s_.big, opts); !st) return st;
        }
    }

    Status parse_v6_data(FileCursor& c, const std::string& tag, uint32_t ncpu, BufferInfo& b, size_t index) {
        if (tag == "latency  ") {
            b.latency = true;
            s_.v6_latency_offsets[index] = c.offset();
            return {};
        }
        if (tag != "flyrecord") {
            return Error(Errc::corrupt, "expected \"flyrecord\" or \"latency\", found \"" + tag + "\"")
                .at_offset(static_cast<int64_t>(c.offset() - 10));
        }
        if (b.section_offset == 0) b.section_offset = c.offset() - 10;
        if (ncpu > c.remaining() / 16) {
            return c.error(Errc::truncated,
                           "CPU table of " + std::to_string(ncpu) + " CPUs runs past the end of the file");
        }
        b.cpus.resize(ncpu);
        for (uint32_t i = 0; i < ncpu; ++i) {
            b.cpus[i].cpu = i;
            b.cpus[i].offset = *c.read<uint64_t>();
            b.cpus[i].size = *c.read<uint64_t>();
        }
        return {};
    }

    detail::ReaderState& s_;
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

}  // namespace

Expected<TraceDatReader> TraceDatReader::open(const std::string& path, int threads) {
    auto f = MappedFile::open(path);
    if (!f) return std::move(f).error();
    return open(std::shared_ptr<const MappedFile>(std::move(*f)), threads);
}

Expected<TraceDatReader> TraceDatReader::open(std::shared_ptr<const MappedFile> file, int threads) {
    auto s = std::make_shared<detail::ReaderState>();
    s->file = std::move(file);
    Parser p(*s, threads);
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
    const MappedFile& f = *s_->file;
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
    return r;
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
    Parser p(const_cast<detail::ReaderState&>(*s_), 1);
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
    if (!(flags & kSectionCompressed)) {
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
