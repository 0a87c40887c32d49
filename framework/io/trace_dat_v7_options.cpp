// TraceDatParser: a v7 file's options sections (BUFFER options, the offsets of the metadata
// sections, typed options) and the metadata sections they point at.
#include "framework/io/trace_dat_parser.hpp"

#include "framework/io/metadata_parsers.hpp"
#include "framework/io/option_codec.hpp"

#include <set>
#include <system_error>
#include <thread>

namespace ringscope::io::detail {

Status TraceDatParser::parse_v7() {
    if (auto st = scan_sections(); !st) return st;
    std::set<uint64_t> seen;
    uint64_t off = options_start_;
    TraceDatOptions& opts = s_.meta.options;
    while (off != 0) {
        if (!seen.insert(off).second) {
            return Error(Errc::corrupt, "options sections form a loop").at_offset(static_cast<int64_t>(off));
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
                        return Error(Errc::corrupt,
                                     "section offset option " + std::to_string(*id) + " shorter than 8 bytes")
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

Status TraceDatParser::parse_buffer_option_v7(uint16_t id, std::span<const uint8_t> data, uint64_t off) {
    const char* what = id == static_cast<uint16_t>(OptionId::buffer) ? "option BUFFER" : "option BUFFER_TEXT";
    ByteCursor c(data, off, s_.big, what);
    BufferInfo b;
    auto corrupt = [&](const std::string& m) { return c.error(Errc::corrupt, m); };
    auto sec = c.read<uint64_t>();
    if (!sec) return corrupt("truncated section offset");
    b.section_offset = *sec;
    auto name = c.cstring();
    if (!name) return corrupt("unterminated buffer name");
    b.name = std::string(*name);
    auto clock = c.cstring();
    if (!clock) return corrupt("unterminated clock name");
    b.clock = std::string(*clock);
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
    auto body_check =
        section_header_at(b.section_offset, b.latency ? OptionId::buffer_text : OptionId::buffer, what, h);
    if (!body_check) return body_check;
    b.compressed = (h.flags & kSectionCompressed) != 0;
    if (b.compressed && s_.compression == Compression::none) {
        return Error(Errc::corrupt, std::string(what) + ": compressed buffer in a file without compression")
            .at_offset(static_cast<int64_t>(b.section_offset));
    }
    if (b.name.empty() && !top_) {
        top_ = std::move(b);
    } else if (!b.name.empty()) {
        instances_.push_back(std::move(b));
    }
    return {};
}

Status TraceDatParser::read_v7_metadata() {
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

Status TraceDatParser::read_v7_section(uint16_t id, uint64_t off, std::unique_ptr<Decompressor>* dec) {
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

Status TraceDatParser::finish_buffers() {
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

}  // namespace ringscope::io::detail
