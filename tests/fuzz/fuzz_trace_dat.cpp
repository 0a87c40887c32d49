// Whole trace.dat files: open, parse every format, walk every page of every CPU and print every
// event as report -N and -R would.
#include <cstdint>
#include <vector>

#include <ringscope/sub_buffer.hpp>
#include <ringscope/text_buffer.hpp>

#include "framework/io/trace_dat_reader.hpp"
#include "tests/fuzz/fuzz_context.hpp"

using namespace ringscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto file = io::MappedFile::from_bytes(std::vector<uint8_t>(data, data + size), "fuzz.dat");
    auto reader = io::TraceDatReader::open(file);
    if (!reader) return 0;
    const io::TraceMetadata& md = reader->metadata();
    format::FormatCatalog catalog(static_cast<int>(reader->long_size()), reader->big_endian());
    for (const auto& f : md.ftrace_formats) (void)catalog.add_format(f, "ftrace");
    for (const auto& sys : md.event_systems)
        for (const auto& f : sys.formats) (void)catalog.add_format(f, sys.system);
    (void)catalog.add_printk_formats(md.printk_formats);
    fuzz::FuzzContext ctx(catalog);

    auto layout = SubBufferLayout::from_header_page(
        md.header_page, reader->big_endian() ? SubBufferEndian::big : SubBufferEndian::little);
    if (!layout) return 0;
    TextBuffer out;
    size_t events = 0;
    for (size_t b = 0; b < reader->buffers().size(); ++b) {
        for (size_t c = 0; c < reader->buffers()[b].cpus.size(); ++c) {
            auto pages = reader->cpu_pages(b, c);
            if (!pages) continue;
            SubBufferLayout l = *layout;
            l.subbuf_size = pages->page_size();
            SubBufferCursor cursor(l);
            for (;;) {
                auto page = pages->next();
                if (!page || page->empty()) break;
                if (!cursor.reset(*page)) continue;
                for (SubBufferRecord r; cursor.next(r) && events < 100000; ++events) {
                    if (r.size < 2) continue;
                    uint16_t id;
                    std::memcpy(&id, r.data, 2);
                    if (reader->big_endian()) id = __builtin_bswap16(id);
                    const EventType* t = catalog.by_id(id);
                    if (!t) continue;
                    Event ev(t, &ctx, {r.data, r.size}, r.ts, static_cast<int>(c));
                    out.clear();
                    catalog.print_info(ev, out);
                    catalog.print_raw(ev, out);
                }
            }
        }
    }
    return 0;
}
