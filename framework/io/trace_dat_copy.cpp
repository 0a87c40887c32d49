// write_trace_dat_copy(): a reader's content written again through TraceDatWriter (round trips,
// conversions between versions and compressions, test generators).
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"

#include <vector>

namespace ringscope::io {

Status write_trace_dat_copy(const TraceDatReader& reader, const std::string& path, WriterConfig config) {
    // trace-cmd 3.4's BTF, modules and last-boot sections go along (their options point into the
    // file they are in: the writer writes new ones).
    auto sections = reader.extra_sections();
    if (!sections) return std::move(sections).error();
    TraceMetadata meta = reader.metadata();
    meta.extra_sections = std::move(*sections);
    return write_trace_dat_copy(reader, path, config, meta);
}

Status write_trace_dat_copy(const TraceDatReader& reader, const std::string& path, WriterConfig config,
                            const TraceMetadata& metadata) {
    config.big_endian = reader.big_endian();
    config.long_size = reader.long_size();
    config.page_size = reader.page_size();
    std::vector<BufferSpec> specs;
    std::vector<size_t> source;
    for (size_t b = 0; b < reader.buffers().size(); ++b) {
        const BufferInfo& bi = reader.buffers()[b];
        if (bi.latency) continue;
        // A v7 file may have no top buffer; the reader then shows an empty one, keep it only if
        // it has CPUs or the target is v6 (which always has one).
        if (bi.name.empty() && bi.cpus.empty() && config.file_version >= 7 && b == 0 &&
            bi.section_offset == 0)
            continue;
        BufferSpec s;
        s.name = bi.name;
        s.clock = bi.clock;
        s.page_size = bi.page_size;
        for (const auto& c : bi.cpus) s.cpus.push_back(c.cpu);
        specs.push_back(std::move(s));
        source.push_back(b);
    }
    auto w = TraceDatWriter::create(path, config, metadata, specs);
    if (!w) return std::move(w).error();
    for (size_t i = 0; i < specs.size(); ++i) {
        for (size_t c = 0; c < specs[i].cpus.size(); ++c) {
            if (auto st = (*w)->begin_cpu(); !st) return st;
            auto pages = reader.cpu_pages(source[i], c);
            if (!pages) return std::move(pages).error();
            // Keep the byte count exact: a short last page is written as stored (zero-padded).
            for (;;) {
                auto p = pages->next();
                if (!p) return std::move(p).error();
                if (p->empty()) break;
                if (auto st = (*w)->write_pages(*p); !st) return st;
            }
            if (auto st = (*w)->end_cpu(); !st) return st;
        }
    }
    return (*w)->finish();
}

}  // namespace ringscope::io
