// trace_repeat IN OUT N [none|zlib|zstd]: writes OUT, a trace.dat with the top buffer of IN repeated
// N times per CPU (same metadata and version; IN's compression unless given), each repetition's page
// timestamps moved past the previous one's so the events stay in time order. bench/compare.sh makes
// its "10x larger" trace (same event mix, N times as many events) and its uncompressed copy with it.
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace ringscope;
using namespace ringscope::io;

namespace {

int fail(const Error& e) {
    std::fprintf(stderr, "trace_repeat: %s\n", e.to_string().c_str());
    return 1;
}

// The sub-buffer header starts with the page's 64-bit timestamp in the file's byte order.
uint64_t page_ts(std::span<const uint8_t> page, bool big_endian) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(page[big_endian ? 7 - i : i]) << (8 * i);
    return v;
}

void set_page_ts(std::span<uint8_t> page, uint64_t ts, bool big_endian) {
    for (int i = 0; i < 8; ++i) page[big_endian ? 7 - i : i] = static_cast<uint8_t>(ts >> (8 * i));
}

// f(page) for every page of CPU entry CPU of the top buffer; stops at the first error.
template <class F>
Status for_each_page(const TraceDatReader& in, size_t cpu, F&& f) {
    auto pages = in.cpu_pages(0, cpu);
    if (!pages) return std::move(pages).error();
    for (;;) {
        auto pg = pages->next();
        if (!pg) return std::move(pg).error();
        if (pg->empty()) return {};
        if (Status st = f(*pg); !st) return st;
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4 || argc > 5 || std::atoi(argv[3]) < 1) {
        std::fprintf(stderr, "usage: trace_repeat IN OUT N [none|zlib|zstd]\n");
        return 2;
    }
    const int repeats = std::atoi(argv[3]);
    auto in = TraceDatReader::open(argv[1]);
    if (!in) return fail(in.error());
    const BufferInfo& top = in->buffers().at(0);
    const bool be = in->big_endian();

    // The span of page timestamps over all CPUs, plus a margin for the events of each last page.
    uint64_t lo = std::numeric_limits<uint64_t>::max(), hi = 0;
    for (size_t c = 0; c < top.cpus.size(); ++c) {
        Status st = for_each_page(*in, c, [&](std::span<const uint8_t> pg) {
            lo = std::min(lo, page_ts(pg, be));
            hi = std::max(hi, page_ts(pg, be));
            return Status{};
        });
        if (!st) return fail(st.error());
    }
    const uint64_t shift = hi > lo ? (hi - lo) + (hi - lo) / 10 + 1000000000ull : 1000000000ull;

    WriterConfig cfg;
    cfg.file_version = in->file_version();
    cfg.compression = in->compression();
    if (argc == 5) {
        auto c = parse_compression(argv[4]);
        if (!c) return fail(c.error());
        cfg.compression = *c;
    }
    cfg.big_endian = be;
    cfg.long_size = in->long_size();
    cfg.page_size = in->page_size();
    BufferSpec spec{"", top.clock, top.page_size, {}};
    for (const CpuDataInfo& c : top.cpus) spec.cpus.push_back(c.cpu);
    auto out = TraceDatWriter::create(argv[2], cfg, in->metadata(), {spec});
    if (!out) return fail(out.error());
    std::vector<uint8_t> page;
    for (size_t c = 0; c < top.cpus.size(); ++c) {
        if (Status st = (*out)->begin_cpu(); !st) return fail(st.error());
        for (int r = 0; r < repeats; ++r) {
            Status st = for_each_page(*in, c, [&](std::span<const uint8_t> pg) {
                page.assign(pg.begin(), pg.end());
                set_page_ts(page, page_ts(page, be) + static_cast<uint64_t>(r) * shift, be);
                return (*out)->write_pages(page);
            });
            if (!st) return fail(st.error());
        }
        if (Status st = (*out)->end_cpu(); !st) return fail(st.error());
    }
    if (Status st = (*out)->finish(); !st) return fail(st.error());
    return 0;
}
