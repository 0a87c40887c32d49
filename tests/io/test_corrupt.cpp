// Bad input: every error is a value naming the file and the byte offset; truncations and byte
// flips anywhere never crash or read out of bounds (run these under ASan+UBSan).
#include "framework/io/option_codec.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "io_test_util.hpp"

using namespace ringscope;
using namespace ringscope::io;
using iotest::data;

namespace {

Expected<TraceDatReader> open_bytes(std::vector<uint8_t> b, const std::string& name = "mem.dat") {
    return TraceDatReader::open(MappedFile::from_bytes(std::move(b), name));
}

// Opens and, if that works, reads every page of every CPU; returns the first error.
std::optional<Error> exercise(std::vector<uint8_t> bytes) {
    auto r = open_bytes(std::move(bytes));
    if (!r) return r.error();
    for (size_t b = 0; b < r->buffers().size(); ++b) {
        for (size_t c = 0; c < r->buffers()[b].cpus.size(); ++c) {
            auto p = r->cpu_pages(b, c);
            if (!p) return p.error();
            for (uint64_t i = p->page_count(); i-- > 0;) {
                auto pg = p->page(i);
                if (!pg) return pg.error();
                if (pg->size() != p->page_size()) return Error(Errc::corrupt, "bad page size");
            }
        }
    }
    return std::nullopt;
}

// A small uncompressed v7 and v6 copy of kvm-extra.dat (kallsyms dropped to keep loops fast).
std::vector<uint8_t> small_copy(uint32_t version, Compression c) {
    iotest::TempDir dir;
    auto src = TraceDatReader::open(data("kvm/kvm-extra.dat"));
    EXPECT_TRUE(src);
    TraceMetadata meta = src->metadata();
    meta.kallsyms = "ffffffff81000000 T _stext\n";
    meta.event_systems.resize(std::min<size_t>(meta.event_systems.size(), 3));
    WriterConfig cfg;
    cfg.file_version = version;
    cfg.compression = c;
    cfg.chunk_pages = 4;
    auto w = TraceDatWriter::create(dir.file("s.dat"), cfg, meta, {BufferSpec{"", "local", 0, {0}}});
    EXPECT_TRUE(w);
    auto pages = iotest::buffer_pages(*src, 0);
    EXPECT_TRUE((*w)->begin_cpu());
    for (const auto& p : pages[0]) EXPECT_TRUE((*w)->write_pages(p));
    EXPECT_TRUE((*w)->end_cpu());
    EXPECT_TRUE((*w)->finish());
    return iotest::slurp_bytes(dir.file("s.dat"));
}

}  // namespace

TEST(Corrupt, BadMagicVersionAndEmptyFile) {
    auto good = iotest::slurp_bytes(data("kvm/kvm-extra.dat"));
    auto b = good;
    b[1] = 0x09;
    auto r = open_bytes(b, "x.dat");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), Errc::bad_magic);
    EXPECT_EQ(r.error().file(), "x.dat");
    EXPECT_EQ(r.error().offset(), 0);
    EXPECT_NE(r.error().to_string().find("x.dat: offset 0"), std::string::npos);

    b = good;
    b[5] = 'X';  // "tracing"
    r = open_bytes(b);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), Errc::bad_magic);

    for (char v : {'5', '8'}) {
        b = good;
        b[10] = static_cast<uint8_t>(v);
        r = open_bytes(b);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code(), Errc::bad_version);
        EXPECT_EQ(r.error().offset(), 10);
        EXPECT_NE(r.error().message().find(std::string("\"") + v + "\""), std::string::npos);
    }
    r = open_bytes({});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), Errc::bad_magic);

    b = good;
    b[18] = 'q';  // "zstd" -> "qstd"
    r = open_bytes(b);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), Errc::unsupported);

    auto missing = TraceDatReader::open("/nonexistent/trace.dat");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code(), Errc::io);
    EXPECT_EQ(missing.error().file(), "/nonexistent/trace.dat");
}

TEST(Corrupt, EveryTruncationFailsCleanly) {
    for (auto [version, comp] : {std::pair{7u, Compression::zstd}, std::pair{7u, Compression::none},
                                 std::pair{6u, Compression::none}}) {
        const auto full = small_copy(version, comp);
        ASSERT_FALSE(exercise(full)) << "the untruncated file must read";
        int failures = 0;
        // Dense near the start (headers, metadata), sparser in the data.
        for (size_t len = 0; len < full.size(); len += (len < 4096 ? 1 : 61)) {
            std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len));
            auto e = exercise(std::move(cut));
            if (!e) continue;  // v6/none: a cut inside the last padding still reads
            ++failures;
            EXPECT_EQ(e->file(), "mem.dat");
            EXPECT_NE(e->code(), Errc::ok);
            if (len >= 4) {
                EXPECT_NE(e->offset(), Error::kNoOffset) << len << ": " << e->to_string();
            }
        }
        EXPECT_GT(failures, 100);
    }
}

TEST(Corrupt, ByteFlipsNeverCrash) {
    for (auto [version, comp] : {std::pair{7u, Compression::zstd}, std::pair{7u, Compression::zlib},
                                 std::pair{6u, Compression::none}}) {
        const auto full = small_copy(version, comp);
        uint64_t x = 0x9e3779b97f4a7c15ull + version;
        for (int round = 0; round < 1500; ++round) {
            auto b = full;
            for (int k = 0; k < 3; ++k) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Bias towards the metadata and options (start and end of the file).
                const size_t span = (x & 1) ? std::min<size_t>(b.size(), 4096) : b.size();
                size_t at = (x >> 8) % span;
                if ((x & 2) && b.size() > 4096) at = b.size() - 1 - at % 4096;
                b[at] ^= static_cast<uint8_t>(x >> 40) | 1;
            }
            auto e = exercise(std::move(b));
            if (e) {
                EXPECT_FALSE(e->file().empty());
            }
        }
    }
}

// Read with threads (report -j), the KALLSYMS section is decompressed beside the others: whatever
// the damage, the metadata or the error (the first failing section's) is what one thread gives.
TEST(Corrupt, MetadataReadByTwoThreadsSameResultAndError) {
    iotest::TempDir dir;
    auto src = TraceDatReader::open(data("kvm/kvm-extra.dat"));
    ASSERT_TRUE(src);
    TraceMetadata meta = src->metadata();
    meta.kallsyms.resize(std::min<size_t>(meta.kallsyms.size(), 64 * 1024));
    WriterConfig cfg;
    cfg.compression = Compression::zstd;
    auto w = TraceDatWriter::create(dir.file("k.dat"), cfg, meta, {BufferSpec{"", "local", 0, {0}}});
    ASSERT_TRUE(w);
    ASSERT_TRUE((*w)->begin_cpu());
    ASSERT_TRUE((*w)->end_cpu());
    ASSERT_TRUE((*w)->finish());
    const auto full = iotest::slurp_bytes(dir.file("k.dat"));
    auto describe = [](const Expected<TraceDatReader>& r) {
        if (!r) return "error " + r.error().to_string();
        const TraceMetadata& m = r->metadata();
        return "ok " + std::to_string(m.kallsyms.size()) + " " +
               std::to_string(std::hash<std::string>{}(m.kallsyms)) + " " +
               std::to_string(m.event_systems.size()) + " " + std::to_string(m.ftrace_formats.size()) + " " +
               m.printk_formats.substr(0, 32) + " " + m.saved_cmdlines.substr(0, 32);
    };
    const std::string whole = describe(TraceDatReader::open(MappedFile::from_bytes(full, "k.dat"), 2));
    ASSERT_EQ(whole.rfind("ok ", 0), 0u) << whole;
    EXPECT_EQ(whole, describe(TraceDatReader::open(MappedFile::from_bytes(full, "k.dat"), 1)));
    uint64_t x = 0x2545f4914f6cdd1dull;
    int failed = 0;
    for (int round = 0; round < 600; ++round) {
        auto b = full;
        for (int k = 0; k < 2; ++k) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b[(x >> 8) % b.size()] ^= static_cast<uint8_t>(x >> 40) | 1;
        }
        const std::string one = describe(TraceDatReader::open(MappedFile::from_bytes(b, "k.dat"), 1));
        const std::string two = describe(TraceDatReader::open(MappedFile::from_bytes(b, "k.dat"), 2));
        ASSERT_EQ(one, two) << "round " << round;
        failed += one.rfind("error ", 0) == 0;
    }
    EXPECT_GT(failed, 100);  // the damage reached the sections
}

TEST(Corrupt, ChunkThatDoesNotDecompress) {
    auto full = small_copy(7, Compression::zstd);
    auto r = open_bytes(full);
    ASSERT_TRUE(r);
    auto p = r->cpu_pages(0, 0);
    ASSERT_TRUE(p);
    ASSERT_GE(p->chunk_count(), 2u);
    // Damage the second chunk's zstd frame magic.
    const uint64_t data_off = r->buffers()[0].cpus[0].offset;
    uint32_t z0;
    std::memcpy(&z0, full.data() + data_off + 4, 4);
    const uint64_t chunk1 = data_off + 4 + 8 + z0;
    full[chunk1 + 8] ^= 0xff;
    auto r2 = open_bytes(full);
    ASSERT_TRUE(r2) << "chunk contents are checked when read";
    auto p2 = r2->cpu_pages(0, 0);
    ASSERT_TRUE(p2);
    ASSERT_TRUE(p2->page(0));
    auto bad = p2->page(4);  // 4 pages per chunk: the second chunk
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code(), Errc::decompress);
    EXPECT_EQ(bad.error().offset(), static_cast<int64_t>(chunk1));
    EXPECT_EQ(bad.error().file(), "mem.dat");
    // The reader recovers for the other chunks.
    ASSERT_TRUE(p2->page(0));

    // A chunk whose size runs past the end of the file is refused when the CPU is opened.
    auto cut = full;
    uint32_t huge = 0x7fffffff;
    std::memcpy(cut.data() + data_off + 4, &huge, 4);
    auto r3 = open_bytes(cut);
    ASSERT_TRUE(r3);
    auto p3 = r3->cpu_pages(0, 0);
    ASSERT_FALSE(p3);
    EXPECT_EQ(p3.error().code(), Errc::truncated);
    EXPECT_EQ(p3.error().offset(), static_cast<int64_t>(data_off + 4));
}

TEST(Corrupt, BadOptionLengthAndOptionLoop) {
    auto full = small_copy(7, Compression::none);
    auto r = open_bytes(full);
    ASSERT_TRUE(r);
    // The options section: the first section with id 0.
    const SectionInfo* opts = nullptr;
    for (const auto& s : r->sections())
        if (s.id == 0) opts = &s;
    ASSERT_NE(opts, nullptr);
    const uint64_t first = opts->offset + 16;  // first option: u16 id, u32 size
    auto b = full;
    uint32_t big = 0x10000000;
    std::memcpy(b.data() + first + 2, &big, 4);
    auto bad = open_bytes(b);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code(), Errc::corrupt);
    EXPECT_EQ(bad.error().offset(), static_cast<int64_t>(first + 6));
    EXPECT_NE(bad.error().message().find("declares 268435456 bytes"), std::string::npos);

    // DONE pointing back at its own section.
    b = full;
    const uint64_t end = opts->offset + 16 + opts->size;
    uint16_t id;
    std::memcpy(&id, b.data() + end - 14, 2);
    ASSERT_EQ(id, 0) << "DONE is the last option";
    std::memcpy(b.data() + end - 8, &opts->offset, 8);
    auto loop = open_bytes(b);
    ASSERT_FALSE(loop);
    EXPECT_EQ(loop.error().code(), Errc::corrupt);
    EXPECT_NE(loop.error().message().find("loop"), std::string::npos);

    // Truncated TIME_SHIFT / GUEST payloads are corrupt, not crashes.
    TraceDatOptions o;
    const uint8_t short_guest[] = {'v', 'm', 0, 1, 2, 3};
    auto st = decode_option(static_cast<uint16_t>(OptionId::guest), short_guest, 100, false, o);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code(), Errc::corrupt);
    std::vector<uint8_t> ts(16, 0);
    ts[12] = 0xff;  // 255 CPUs in 0 bytes
    st = decode_option(static_cast<uint16_t>(OptionId::time_shift), ts, 200, false, o);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code(), Errc::corrupt);
    const uint8_t cpucount[] = {1, 0};
    st = decode_option(static_cast<uint16_t>(OptionId::cpucount), cpucount, 300, false, o);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().offset(), 300);
}

TEST(Corrupt, CpuDataPastTheEndIsReportedAsTruncated) {
    auto full = small_copy(7, Compression::none);
    auto r = open_bytes(full);
    ASSERT_TRUE(r);
    const auto& cpu = r->buffers()[0].cpus[0];
    // Cut the file in the middle of the CPU data (the metadata comes after it in our layout, so
    // take the layout of a v6 file instead, where the data is last).
    auto v6 = small_copy(6, Compression::none);
    auto r6 = open_bytes(v6);
    ASSERT_TRUE(r6);
    const auto& c6 = r6->buffers()[0].cpus[0];
    v6.resize(c6.offset + c6.size / 2);
    auto bad = open_bytes(v6);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code(), Errc::truncated);
    EXPECT_EQ(bad.error().offset(), static_cast<int64_t>(c6.offset));
    EXPECT_GT(cpu.size, 0u);
}
