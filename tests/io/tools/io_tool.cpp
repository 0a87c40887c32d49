// Developer and test helper for framework/io:
//   io_tool info FILE                      metadata, options, buffers, per-CPU page counts
//   io_tool copy IN OUT VERSION COMPRESSION [CHUNK_PAGES]   rewrite with TraceDatWriter
//   io_tool pages FILE [reverse]           walk every page of every CPU, print a checksum
//   io_tool strip IN OUT [SYS,SYS...]     v7 zstd copy without kallsyms and, if given, only the
//                                          listed event systems (small test files)
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace ringscope;
using namespace ringscope::io;

namespace {

int fail(const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.to_string().c_str());
    return 1;
}

int info(const std::string& path) {
    auto r = TraceDatReader::open(path);
    if (!r) return fail(r.error());
    const auto& m = r->metadata();
    std::printf("version %u endian %s long %u page %u compression %s %s\n", r->file_version(),
                r->big_endian() ? "big" : "little", r->long_size(), r->page_size(),
                compression_name(r->compression()), r->compression_version().c_str());
    std::printf(
        "header_page %zu header_event %zu ftrace %zu systems %zu kallsyms %zu printk %zu cmdlines %zu cpus "
        "%u\n",
        m.header_page.size(), m.header_event.size(), m.ftrace_formats.size(), m.event_systems.size(),
        m.kallsyms.size(), m.printk_formats.size(), m.saved_cmdlines.size(), r->cpu_count());
    const auto& o = m.options;
    if (o.uname) std::printf("uname %s\n", o.uname->c_str());
    if (o.version) std::printf("version-option %s\n", o.version->c_str());
    if (o.trace_id) std::printf("traceid 0x%" PRIX64 "\n", *o.trace_id);
    if (o.tsc2nsec)
        std::printf("tsc2nsec %u %u %" PRIu64 "\n", o.tsc2nsec->mult, o.tsc2nsec->shift, o.tsc2nsec->offset);
    std::printf("cpustats %zu guests %zu unknown %zu\n", o.cpustats.size(), o.guests.size(),
                o.unknown.size());
    for (size_t b = 0; b < r->buffers().size(); ++b) {
        const auto& bi = r->buffers()[b];
        std::printf("buffer \"%s\" clock \"%s\" page %u cpus %zu%s%s\n", bi.name.c_str(), bi.clock.c_str(),
                    bi.page_size, bi.cpus.size(), bi.compressed ? " compressed" : "",
                    bi.latency ? " latency" : "");
        for (size_t c = 0; c < bi.cpus.size(); ++c) {
            auto p = r->cpu_pages(b, c);
            if (!p) return fail(p.error());
            std::printf("  cpu %u offset %" PRIu64 " size %" PRIu64 " pages %" PRIu64 " chunks %zu\n",
                        bi.cpus[c].cpu, bi.cpus[c].offset, bi.cpus[c].size, p->page_count(),
                        p->chunk_count());
        }
    }
    for (const auto& s : r->sections())
        std::printf("section %u flags %u \"%s\" @%" PRIu64 " size %" PRIu64 "\n", s.id, s.flags,
                    s.description.c_str(), s.offset, s.size);
    return 0;
}

int copy(int argc, char** argv) {
    auto r = TraceDatReader::open(argv[2]);
    if (!r) return fail(r.error());
    WriterConfig cfg;
    cfg.file_version = static_cast<uint32_t>(std::atoi(argv[4]));
    auto comp = parse_compression(argv[5]);
    if (!comp) return fail(comp.error());
    cfg.compression = *comp;
    if (argc > 6) cfg.chunk_pages = static_cast<uint32_t>(std::atoi(argv[6]));
    if (auto st = write_trace_dat_copy(*r, argv[3], cfg); !st) return fail(st.error());
    return 0;
}

// Copies IN with an empty kallsyms section, through the public reader/writer interfaces.
int strip(const std::string& in, const std::string& out, const char* systems) {
    auto r = TraceDatReader::open(in);
    if (!r) return fail(r.error());
    TraceMetadata meta = r->metadata();
    meta.kallsyms.clear();
    if (systems) {
        const std::string keep = std::string(",") + systems + ",";
        std::erase_if(meta.event_systems, [&](const EventSystemFormats& s) {
            return keep.find("," + s.system + ",") == std::string::npos;
        });
    }
    std::vector<BufferSpec> specs;
    for (const auto& b : r->buffers()) {
        BufferSpec s{b.name, b.clock, b.page_size, {}};
        for (const auto& c : b.cpus) s.cpus.push_back(c.cpu);
        specs.push_back(std::move(s));
    }
    WriterConfig cfg;
    cfg.page_size = r->page_size();
    auto w = TraceDatWriter::create(out, cfg, std::move(meta), specs);
    if (!w) return fail(w.error());
    for (size_t b = 0; b < specs.size(); ++b) {
        for (size_t c = 0; c < specs[b].cpus.size(); ++c) {
            auto p = r->cpu_pages(b, c);
            if (!p) return fail(p.error());
            if (auto st = (*w)->begin_cpu(); !st) return fail(st.error());
            for (;;) {
                auto pg = p->next();
                if (!pg) return fail(pg.error());
                if (pg->empty()) break;
                if (auto st = (*w)->write_pages(*pg); !st) return fail(st.error());
            }
            if (auto st = (*w)->end_cpu(); !st) return fail(st.error());
        }
    }
    if (auto st = (*w)->finish(); !st) return fail(st.error());
    return 0;
}

int pages(const std::string& path, bool reverse) {
    auto r = TraceDatReader::open(path);
    if (!r) return fail(r.error());
    uint64_t sum = 0, n = 0, dec = 0;
    for (size_t b = 0; b < r->buffers().size(); ++b) {
        for (size_t c = 0; c < r->buffers()[b].cpus.size(); ++c) {
            auto p = r->cpu_pages(b, c);
            if (!p) return fail(p.error());
            const uint64_t count = p->page_count();
            for (uint64_t i = 0; i < count; ++i) {
                auto pg = reverse ? p->page(count - 1 - i) : p->next();
                if (!pg) return fail(pg.error());
                for (size_t k = 0; k < pg->size(); k += 64) sum = sum * 31 + (*pg)[k];
                ++n;
            }
            dec += p->decompressions();
        }
    }
    std::printf("pages %" PRIu64 " decompressions %" PRIu64 " sum %" PRIx64 "\n", n, dec, sum);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 3 && std::strcmp(argv[1], "info") == 0) return info(argv[2]);
    if (argc >= 6 && std::strcmp(argv[1], "copy") == 0) return copy(argc, argv);
    if (argc >= 3 && std::strcmp(argv[1], "pages") == 0) return pages(argv[2], argc > 3);
    if (argc >= 4 && std::strcmp(argv[1], "strip") == 0)
        return strip(argv[2], argv[3], argc > 4 ? argv[4] : nullptr);
    std::fprintf(stderr,
                 "usage: io_tool info FILE | copy IN OUT 6|7 none|zlib|zstd [CHUNK_PAGES] | pages FILE "
                 "[reverse] | strip IN OUT [SYS,...]\n");
    return 2;
}
