// TraceDatParser: a v6 file: inline metadata, the options, the flyrecord (or latency) CPU table
// of the top buffer and of each instance.
#include "framework/io/trace_dat_parser.hpp"

#include "framework/io/metadata_parsers.hpp"
#include "framework/io/option_codec.hpp"

namespace ringscope::io::detail {

Status TraceDatParser::parse_v6() {
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

Expected<std::string> TraceDatParser::read_tag(FileCursor& c) {
    auto b = c.bytes(10);
    if (!b) return std::move(b).error();
    return std::string(reinterpret_cast<const char*>(b->data()), 9);
}

Status TraceDatParser::parse_v6_options(FileCursor& c, TraceDatOptions& opts,
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
            if (buffers) buffers->emplace_back(*off, std::string(*name));
            continue;
        }
        if (auto st = decode_option(*id, *data, c.offset() - *size, s_.big, opts); !st) return st;
    }
}

Status TraceDatParser::parse_v6_data(FileCursor& c, const std::string& tag, uint32_t ncpu, BufferInfo& b,
                                     size_t index) {
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

}  // namespace ringscope::io::detail
