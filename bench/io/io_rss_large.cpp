// Bounded memory on large files:
//   io_rss_large make FILE GIB [zstd|zlib|none]   writes GIB GiB of ring-buffer data (host.dat's
//                                                  pages repeated, two CPUs) with TraceDatWriter
//   io_rss_large walk FILE [reverse]               walks every page of every CPU and prints the
//                                                  throughput and the peak RSS (getrusage)
// Run both as separate processes so the walk's peak RSS is its own (bench/io/run_rss.sh).
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"

#include <sys/resource.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace ringscope;
using namespace ringscope::io;

namespace {

long peak_rss_kb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

long current_rss_kb() {
    FILE* f = std::fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (f) {
        if (std::fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
        std::fclose(f);
    }
    return rss * 4;
}

// "RssAnon: ..., RssFile: ..." from /proc/self/status: what the resident memory is made of.
std::string rss_breakdown() {
    FILE* f = std::fopen("/proc/self/status", "r");
    std::string out;
    char line[256];
    while (f && std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, "RssAnon:", 8) == 0 || std::strncmp(line, "RssFile:", 8) == 0) {
            std::string l(line);
            l.erase(std::remove_if(l.begin(), l.end(), [](char c) { return c == '\n' || c == '\t'; }),
                    l.end());
            out += (out.empty() ? "" : ", ") + l;
        }
    }
    if (f) std::fclose(f);
    return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int fail(const Error& e) {
    std::fprintf(stderr, "%s\n", e.to_string().c_str());
    return 1;
}

int make(const std::string& out, double gib, Compression c) {
    auto src = TraceDatReader::open(std::string(RINGSCOPE_TEST_DATA_DIR) + "/kvm-agent/host.dat");
    if (!src) return fail(src.error());
    auto p = src->cpu_pages(0, 0);
    if (!p) return fail(p.error());
    std::vector<uint8_t> all;
    for (;;) {
        auto pg = p->next();
        if (!pg || pg->empty()) break;
        all.insert(all.end(), pg->begin(), pg->end());
    }
    WriterConfig cfg;
    cfg.compression = c;
    // Two CPUs, half the data each, so the walk shows per-CPU state stays bounded too.
    auto w = TraceDatWriter::create(out, cfg, src->metadata(), {BufferSpec{"", "tsc2nsec", 0, {0, 1}}});
    if (!w) return fail(w.error());
    const uint64_t per_cpu = static_cast<uint64_t>(gib * (1ull << 30) / 2);
    const auto t0 = std::chrono::steady_clock::now();
    for (int cpu = 0; cpu < 2; ++cpu) {
        if (auto st = (*w)->begin_cpu(); !st) return fail(st.error());
        for (uint64_t done = 0; done < per_cpu; done += all.size())
            if (auto st = (*w)->write_pages(all); !st) return fail(st.error());
        if (auto st = (*w)->end_cpu(); !st) return fail(st.error());
    }
    if (auto st = (*w)->finish(); !st) return fail(st.error());
    const double s = seconds_since(t0);
    std::printf("wrote %s: %.2f GiB of pages (%s) in %.1f s = %.0f MB/s, peak RSS %ld KB\n", out.c_str(), gib,
                compression_name(c), s, gib * 1073.741824 / s, peak_rss_kb());
    return 0;
}

int walk(const std::string& path, bool reverse) {
    auto r = TraceDatReader::open(path);
    if (!r) return fail(r.error());
    const long rss_open = current_rss_kb();
    const auto t0 = std::chrono::steady_clock::now();
    uint64_t bytes = 0, pages = 0, decompressions = 0, chunks = 0, sum = 0;
    long rss_max_seen = 0;
    for (size_t b = 0; b < r->buffers().size(); ++b) {
        for (size_t c = 0; c < r->buffers()[b].cpus.size(); ++c) {
            auto p = r->cpu_pages(b, c);
            if (!p) return fail(p.error());
            const uint64_t n = p->page_count();
            for (uint64_t i = 0; i < n; ++i) {
                auto pg = reverse ? p->page(n - 1 - i) : p->next();
                if (!pg) return fail(pg.error());
                for (size_t k = 0; k < pg->size(); k += 256) sum += (*pg)[k];
                bytes += pg->size();
                ++pages;
                if ((pages & 0xffff) == 0) rss_max_seen = std::max(rss_max_seen, current_rss_kb());
            }
            decompressions += p->decompressions();
            chunks += p->chunk_count();
        }
    }
    const double s = seconds_since(t0);
    std::printf(
        "walked %s%s: %llu pages, %.2f GiB in %.2f s = %.0f MB/s; chunks %llu, decompressions %llu; "
        "RSS after open %ld KB, max sampled RSS %ld KB, peak RSS %ld KB, at the end %s (checksum %llx)\n",
        path.c_str(), reverse ? " (reverse)" : "", static_cast<unsigned long long>(pages),
        static_cast<double>(bytes) / (1ull << 30), s, static_cast<double>(bytes) / 1e6 / s,
        static_cast<unsigned long long>(chunks), static_cast<unsigned long long>(decompressions), rss_open,
        rss_max_seen, peak_rss_kb(), rss_breakdown().c_str(), static_cast<unsigned long long>(sum));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 4 && std::strcmp(argv[1], "make") == 0) {
        Compression c = Compression::zstd;
        if (argc > 4) {
            auto pc = parse_compression(argv[4]);
            if (!pc) return fail(pc.error()) + 1;
            c = *pc;
        }
        return make(argv[2], std::atof(argv[3]), c);
    }
    if (argc >= 3 && std::strcmp(argv[1], "walk") == 0) return walk(argv[2], argc > 3);
    std::fprintf(stderr, "usage: io_rss_large make FILE GIB [zstd|zlib|none] | walk FILE [reverse]\n");
    return 2;
}
