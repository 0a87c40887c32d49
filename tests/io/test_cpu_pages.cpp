// CpuPageReader: sequential, random and reverse access, chunk decompression counts, read windows.
#include "framework/io/trace_dat_writer.hpp"
#include "io_test_util.hpp"

using namespace ringscope;
using namespace ringscope::io;
using iotest::data;

namespace {

// A v7 copy of kvm-agent/host.dat (902 pages on one CPU) with CHUNK_PAGES pages per chunk.
std::string make_copy(const iotest::TempDir& dir, Compression c, uint32_t chunk_pages,
                      const std::string& name) {
    auto src = TraceDatReader::open(data("kvm-agent/host.dat"));
    EXPECT_TRUE(src);
    WriterConfig cfg;
    cfg.compression = c;
    cfg.chunk_pages = chunk_pages;
    const std::string out = dir.file(name);
    auto st = write_trace_dat_copy(*src, out, cfg);
    EXPECT_TRUE(st) << (st ? "" : st.error().to_string());
    return out;
}

void check_access_patterns(const std::string& path) {
    auto r = TraceDatReader::open(path);
    ASSERT_TRUE(r) << r.error().to_string();
    auto fwd = r->cpu_pages(0, 0);
    ASSERT_TRUE(fwd);
    const auto pages = iotest::all_pages(*fwd);
    ASSERT_EQ(pages.size(), fwd->page_count());
    ASSERT_GT(pages.size(), 100u);
    EXPECT_EQ(fwd->position(), fwd->page_count());
    // After the end next() keeps returning an empty span.
    auto end = fwd->next();
    ASSERT_TRUE(end);
    EXPECT_TRUE(end->empty());
    // Forward: each chunk decompressed exactly once.
    EXPECT_EQ(fwd->decompressions(), fwd->chunk_count());

    // Reverse with page(): equal pages, still one decompression per chunk.
    auto rev = r->cpu_pages(0, 0);
    ASSERT_TRUE(rev);
    for (uint64_t i = pages.size(); i-- > 0;) {
        auto p = rev->page(i);
        ASSERT_TRUE(p) << p.error().to_string();
        ASSERT_EQ(std::vector<uint8_t>(p->begin(), p->end()), pages[i]) << "page " << i;
    }
    EXPECT_EQ(rev->decompressions(), rev->chunk_count());
    EXPECT_EQ(rev->position(), 0u);

    // Scattered random access returns the same bytes.
    auto rnd = r->cpu_pages(0, 0);
    ASSERT_TRUE(rnd);
    uint64_t x = 12345;
    for (int k = 0; k < 300; ++k) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t i = (x >> 33) % pages.size();
        auto p = rnd->page(i);
        ASSERT_TRUE(p);
        ASSERT_EQ(std::vector<uint8_t>(p->begin(), p->end()), pages[i]) << "page " << i;
    }
    // seek() + next() continue from there.
    rnd->seek(pages.size() - 2);
    auto a = rnd->next();
    ASSERT_TRUE(a);
    EXPECT_EQ(std::vector<uint8_t>(a->begin(), a->end()), pages[pages.size() - 2]);
    auto out_of_range = rnd->page(pages.size());
    ASSERT_FALSE(out_of_range);
    EXPECT_EQ(out_of_range.error().code(), Errc::invalid_argument);
    EXPECT_EQ(out_of_range.error().file(), path);
}

}  // namespace

TEST(CpuPages, CommittedZstdFileAllAccessPatterns) {
    check_access_patterns(data("kvm-agent/host.dat"));
}

TEST(CpuPages, ChunkSizesOneAndSevenPagesZstdAndZlib) {
    iotest::TempDir dir;
    ASSERT_TRUE(dir.ok());
    check_access_patterns(make_copy(dir, Compression::zstd, 1, "c1.dat"));
    check_access_patterns(make_copy(dir, Compression::zlib, 7, "c7.dat"));
    // With 7-page chunks the last chunk is partial: the page count still matches the source.
    auto r = TraceDatReader::open(dir.file("c7.dat"));
    ASSERT_TRUE(r);
    auto p = r->cpu_pages(0, 0);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->chunk_count(), (p->page_count() + 6) / 7);
}

TEST(CpuPages, UncompressedPagesAreReadInWindowsOrViewedInMemory) {
    iotest::TempDir dir;
    const std::string path = make_copy(dir, Compression::none, 10, "none.dat");
    check_access_patterns(path);
    auto r = TraceDatReader::open(path);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->file()->mode(), MappedFile::Mode::mapped);
    auto pr = r->cpu_pages(0, 0);
    ASSERT_TRUE(pr);
    EXPECT_FALSE(pr->compressed());
    EXPECT_EQ(pr->chunk_count(), 0u);
    const auto whole = r->file()->bytes();
    const uint64_t window = (256u << 10) / pr->page_size();
    ASSERT_GT(pr->page_count(), 2 * window) << "the walk must cross windows";
    const uint8_t* prev = nullptr;
    for (uint64_t i = 0; i < pr->page_count(); ++i) {
        auto p = pr->page(i);
        ASSERT_TRUE(p);
        ASSERT_EQ(std::memcmp(p->data(), whole.data() + pr->page_offset(i), pr->page_size()), 0)
            << "page " << i;
        // A copy, not the mapping; the pages of one window come from one read, back to back.
        EXPECT_NE(p->data(), whole.data() + pr->page_offset(i));
        if (i % window != 0) {
            EXPECT_EQ(p->data(), prev + pr->page_size()) << "page " << i;
        }
        prev = p->data();
    }
    EXPECT_EQ(pr->decompressions(), 0u);

    // A file held in memory: views into its bytes, no copy.
    auto mem = MappedFile::from_bytes(std::vector<uint8_t>(whole.begin(), whole.end()), "none-in-memory");
    auto rm = TraceDatReader::open(mem);
    ASSERT_TRUE(rm) << rm.error().to_string();
    auto pm = rm->cpu_pages(0, 0);
    ASSERT_TRUE(pm);
    for (uint64_t i = 0; i < pm->page_count(); ++i) {
        auto p = pm->page(i);
        ASSERT_TRUE(p);
        EXPECT_EQ(p->data(), mem->bytes().data() + pm->page_offset(i));
    }
}

// What follows a page in the reader's memory (Record::trailing, for -R's partial arrays): the next
// page of its chunk, none at a chunk's end; uncompressed, the next page of the CPU's data, whichever
// window or direction read it.
void check_bytes_after(const std::string& path, uint64_t chunk_pages) {
    auto r = TraceDatReader::open(path);
    ASSERT_TRUE(r) << r.error().to_string();
    auto all = r->cpu_pages(0, 0);
    ASSERT_TRUE(all);
    const auto pages = iotest::all_pages(*all);
    auto pr = r->cpu_pages(0, 0);
    ASSERT_TRUE(pr);
    const uint64_t n = pages.size(), ps = pr->page_size();
    ASSERT_GT(n, 2u);
    for (int pass = 0; pass < 2; ++pass) {
        for (uint64_t k = 0; k + 1 < n; ++k) {
            const uint64_t i = pass == 0 ? k : n - 2 - k;  // forwards, then backwards
            auto p = pr->page(i);
            ASSERT_TRUE(p);
            const bool chunk_end = chunk_pages && i % chunk_pages == chunk_pages - 1;
            ASSERT_EQ(pr->bytes_after_page(), chunk_end ? 0u : ps) << "page " << i << " pass " << pass;
            if (!chunk_end) {
                ASSERT_EQ(std::memcmp(p->data() + ps, pages[i + 1].data(), ps), 0) << "page " << i;
            }
        }
    }
    ASSERT_TRUE(pr->page(n - 1));
    EXPECT_EQ(pr->bytes_after_page(), 0u);  // the last page: nothing of the CPU follows
}

TEST(CpuPages, BytesAfterAPageAreTheNextOfItsChunkOrData) {
    iotest::TempDir dir;
    ASSERT_TRUE(dir.ok());
    check_bytes_after(make_copy(dir, Compression::zstd, 7, "c7.dat"), 7);
    check_bytes_after(make_copy(dir, Compression::zstd, 1, "c1.dat"), 1);
    const std::string none = make_copy(dir, Compression::none, 10, "none.dat");
    check_bytes_after(none, 0);
    const auto bytes = iotest::slurp_bytes(none);
    auto in_memory = MappedFile::from_bytes(bytes, "none-in-memory");
    auto rm = TraceDatReader::open(in_memory);
    ASSERT_TRUE(rm);
    auto pm = rm->cpu_pages(0, 0);
    ASSERT_TRUE(pm);
    ASSERT_TRUE(pm->page(0));
    EXPECT_EQ(pm->bytes_after_page(), pm->page_size());
    ASSERT_TRUE(pm->page(pm->page_count() - 1));
    EXPECT_EQ(pm->bytes_after_page(), 0u);
}

TEST(CpuPages, ShortLastPageIsZeroPadded) {
    // A v6 file whose CPU data size is not a multiple of the page size: the last page is padded.
    iotest::TempDir dir;
    auto src = TraceDatReader::open(data("kvm/kvm-extra.dat"));
    ASSERT_TRUE(src);
    auto pages = iotest::buffer_pages(*src, 0);
    ASSERT_EQ(pages.count(0), 1u);
    TraceMetadata meta = src->metadata();
    WriterConfig cfg;
    cfg.compression = Compression::none;
    auto w = TraceDatWriter::create(dir.file("short.dat"), cfg, meta, {BufferSpec{"", "local", 0, {0}}});
    ASSERT_TRUE(w);
    ASSERT_TRUE((*w)->begin_cpu());
    for (const auto& pg : pages[0]) ASSERT_TRUE((*w)->write_pages(pg));
    ASSERT_TRUE((*w)->end_cpu());
    ASSERT_TRUE((*w)->finish());
    // Shorten the recorded size of CPU 0 by 100 bytes by reading the file as bytes and patching
    // the BUFFER option's size field (the last u64 before DONE's id).
    auto bytes = iotest::slurp_bytes(dir.file("short.dat"));
    auto r0 = TraceDatReader::open(dir.file("short.dat"));
    ASSERT_TRUE(r0);
    const uint64_t size = r0->buffers()[0].cpus[0].size;
    bool patched = false;
    for (size_t i = 0; i + 8 <= bytes.size(); ++i) {
        uint64_t v;
        std::memcpy(&v, bytes.data() + i, 8);
        uint64_t off;
        if (i >= 8) std::memcpy(&off, bytes.data() + i - 8, 8);
        if (i >= 8 && v == size && off == r0->buffers()[0].cpus[0].offset) {
            const uint64_t shorter = size - 100;
            std::memcpy(bytes.data() + i, &shorter, 8);
            patched = true;
        }
    }
    ASSERT_TRUE(patched);
    auto r = TraceDatReader::open(MappedFile::from_bytes(bytes, "short.dat"));
    ASSERT_TRUE(r) << r.error().to_string();
    auto pr = r->cpu_pages(0, 0);
    ASSERT_TRUE(pr);
    ASSERT_EQ(pr->page_count(), pages[0].size());
    auto last = pr->page(pr->page_count() - 1);
    ASSERT_TRUE(last);
    ASSERT_EQ(last->size(), pr->page_size());
    const auto& want = pages[0].back();
    const size_t keep = want.size() - 100;
    EXPECT_TRUE(std::equal(want.begin(), want.begin() + keep, last->begin()));
    EXPECT_TRUE(std::all_of(last->begin() + keep, last->end(), [](uint8_t b) { return b == 0; }));
}

TEST(CpuPages, ReadersOfDifferentCpusAreIndependent) {
    auto r = TraceDatReader::open(data("kvm-agent/host-vm2.dat"));
    ASSERT_TRUE(r);
    auto a = r->cpu_pages(0, 0);
    auto b = r->cpu_pages(0, 1);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->cpu(), 0u);
    EXPECT_EQ(b->cpu(), 1u);
    // Interleave: each reader keeps its own chunk.
    auto pa = iotest::all_pages(*a);
    auto a2 = r->cpu_pages(0, 0);
    ASSERT_TRUE(a2);
    for (uint64_t i = 0; i < a2->page_count(); ++i) {
        auto x = a2->page(i);
        auto y = b->page(i % b->page_count());
        ASSERT_TRUE(x && y);
        ASSERT_EQ(std::vector<uint8_t>(x->begin(), x->end()), pa[i]);
    }
    auto bad = r->cpu_pages(0, 2);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code(), Errc::invalid_argument);
    auto bad_buffer = r->cpu_pages(5, 0);
    ASSERT_FALSE(bad_buffer);
}

TEST(CpuPages, ClonesShareThePublishedChunks) {
    // report -j's slices: a chunk one clone published is copied by another, not decompressed again;
    // the pages are the same bytes either way.
    iotest::TempDir dir;
    const std::string path = make_copy(dir, Compression::zstd, 4, "shared.dat");
    auto r = TraceDatReader::open(path);
    ASSERT_TRUE(r) << r.error().to_string();
    auto plain = r->cpu_pages(0, 0);
    ASSERT_TRUE(plain);
    const auto pages = iotest::all_pages(*plain);
    ASSERT_GT(plain->chunk_count(), 20u);

    auto base = r->cpu_pages(0, 0);
    ASSERT_TRUE(base);
    base->share_chunks(std::make_shared<SharedChunks>(2));
    CpuPageReader a = base->clone(), b = base->clone();
    ASSERT_TRUE(a.page(4 * 10 + 1));  // chunk 10
    a.publish_current_chunk();
    ASSERT_TRUE(a.page(4 * 11));  // chunk 11, not published
    auto p = b.page(4 * 10 + 2);
    ASSERT_TRUE(p);
    EXPECT_EQ(std::vector<uint8_t>(p->begin(), p->end()), pages[4 * 10 + 2]);
    EXPECT_EQ(b.shared_chunk_hits(), 1u);
    EXPECT_EQ(b.decompressions(), 0u);
    ASSERT_TRUE(b.page(4 * 11));
    EXPECT_EQ(b.decompressions(), 1u);  // not published: decompressed
    // Two are kept: publishing 12 and 13 lets 10 go.
    ASSERT_TRUE(a.page(4 * 12));
    a.publish_current_chunk();
    ASSERT_TRUE(a.page(4 * 13));
    a.publish_current_chunk();
    CpuPageReader c = base->clone();
    for (uint64_t i = 0; i < pages.size(); ++i) {
        auto q = c.page(i);
        ASSERT_TRUE(q);
        ASSERT_EQ(std::vector<uint8_t>(q->begin(), q->end()), pages[i]) << "page " << i;
    }
    EXPECT_EQ(c.shared_chunk_hits(), 2u);  // 12 and 13
    EXPECT_EQ(c.decompressions(), c.chunk_count() - 2);
}

TEST(SharedChunks, KeepsTheLastOnesAndCopies) {
    SharedChunks s(2);
    std::vector<uint8_t> out;
    EXPECT_FALSE(s.get(1, out));
    const std::vector<uint8_t> one{1, 1}, two{2, 2, 2}, three{3};
    s.put(1, one);
    s.put(2, two);
    s.put(1, three);  // held already: unchanged
    ASSERT_TRUE(s.get(1, out));
    EXPECT_EQ(out, one);
    s.put(3, three);  // in place of the oldest, 1
    EXPECT_FALSE(s.get(1, out));
    ASSERT_TRUE(s.get(2, out));
    EXPECT_EQ(out, two);
    ASSERT_TRUE(s.get(3, out));
    EXPECT_EQ(out, three);
}
