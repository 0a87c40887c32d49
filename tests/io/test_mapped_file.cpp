// MappedFile: mapped regular files, memory mode for pipes, bounds-checked reads.
#include "framework/io/mapped_file.hpp"
#include "io_test_util.hpp"

#include "framework/io/compression.hpp"
#include "framework/io/trace_dat_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

using namespace ringscope;
using namespace ringscope::io;

TEST(MappedFile, RegularFileIsMappedAndReadsAreBounded) {
    const std::string path = iotest::data("kvm/kvm-extra.dat");
    const std::string want = iotest::read_file(path);
    auto f = MappedFile::open(path);
    ASSERT_TRUE(f) << f.error().to_string();
    EXPECT_EQ((*f)->mode(), MappedFile::Mode::mapped);
    ASSERT_EQ((*f)->size(), want.size());
    EXPECT_EQ(std::string(reinterpret_cast<const char*>((*f)->bytes().data()), want.size()), want);
    std::vector<uint8_t> scratch;
    auto mid = (*f)->read(1000, 24, scratch);
    ASSERT_TRUE(mid);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(mid->data()), 24), want.substr(1000, 24));
    EXPECT_TRUE(scratch.empty()) << "mapped reads do not copy";
    auto tail = (*f)->read(want.size() - 4, 4, scratch);
    ASSERT_TRUE(tail);
    auto past = (*f)->read(want.size() - 4, 5, scratch);
    ASSERT_FALSE(past);
    EXPECT_EQ(past.error().code(), Errc::truncated);
    EXPECT_EQ(past.error().offset(), static_cast<int64_t>(want.size() - 4));
    EXPECT_EQ(past.error().file(), path);
    auto way_past = (*f)->read(UINT64_MAX - 2, 8, scratch);
    ASSERT_FALSE(way_past);
}

TEST(MappedFile, MissingFileIsAnIoError) {
    auto f = MappedFile::open("/nonexistent/file.dat");
    ASSERT_FALSE(f);
    EXPECT_EQ(f.error().code(), Errc::io);
    EXPECT_EQ(f.error().file(), "/nonexistent/file.dat");
    EXPECT_NE(f.error().message().find("No such file"), std::string::npos);
}

TEST(MappedFile, FifoIsReadIntoMemory) {
    iotest::TempDir dir;
    const std::string fifo = dir.file("pipe");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const std::string payload = iotest::read_file(iotest::data("kvm/kvm-extra.dat"));
    std::thread writer([&] {
        FILE* w = fopen(fifo.c_str(), "wb");
        if (!w) return;
        fwrite(payload.data(), 1, payload.size(), w);
        fclose(w);
    });
    auto f = MappedFile::open(fifo);
    writer.join();
    ASSERT_TRUE(f) << f.error().to_string();
    EXPECT_EQ((*f)->mode(), MappedFile::Mode::memory);
    ASSERT_EQ((*f)->size(), payload.size());
    EXPECT_EQ(std::memcmp((*f)->bytes().data(), payload.data(), payload.size()), 0);
}

// A pipe is read once: a second open of it (the format probe, then the reader) gets the same
// bytes instead of an empty pipe.
TEST(MappedFile, PipeOpenedTwiceGivesTheSameBytes) {
    iotest::TempDir dir;
    const std::string fifo = dir.file("pipe2");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const std::string payload = iotest::read_file(iotest::data("io/multi-v7-zstd.dat"));
    std::thread writer([&] {
        FILE* w = fopen(fifo.c_str(), "wb");
        if (!w) return;
        fwrite(payload.data(), 1, payload.size(), w);
        fclose(w);
    });
    auto first = MappedFile::open(fifo);
    writer.join();
    ASSERT_TRUE(first) << first.error().to_string();
    // Nobody writes any more: a second read of the pipe would block or find nothing.
    const int keep = ::open(fifo.c_str(), O_RDWR);  // lets the next open()s return at once
    auto second = MappedFile::open(fifo);
    auto reader = TraceDatReader::open(fifo);
    ::close(keep);
    ASSERT_TRUE(second) << second.error().to_string();
    ASSERT_EQ((*second)->size(), payload.size());
    EXPECT_EQ(std::memcmp((*second)->bytes().data(), payload.data(), payload.size()), 0);
    ASSERT_TRUE(reader) << reader.error().to_string();
    EXPECT_EQ(reader->buffers().size(), 2u);
}

// /dev/zero never ends: devices are refused at once, naming the file and offset 0.
TEST(MappedFile, DevicesAreRefused) {
    for (const char* dev : {"/dev/zero", "/dev/null"}) {
        auto f = MappedFile::open(dev);
        ASSERT_FALSE(f) << dev;
        EXPECT_EQ(f.error().file(), dev);
        EXPECT_EQ(f.error().offset(), 0);
        EXPECT_NE(f.error().message().find("not a regular file or a pipe"), std::string::npos);
    }
}

// decompress_growing: exactly the declared size, or an error before memory for a size the data
// does not back is taken.
TEST(Decompression, GrowingOutputChecksTheDeclaredSize) {
    std::vector<uint8_t> data(3u << 20);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
    for (Compression c : {Compression::zstd, Compression::zlib}) {
        SCOPED_TRACE(compression_name(c));
        std::vector<uint8_t> z;
        ASSERT_TRUE(Compressor::create(c)->compress(data, z));
        auto d = Decompressor::create(c);
        std::string out;
        ASSERT_TRUE(d->decompress_growing(z, data.size(), out));
        ASSERT_EQ(out.size(), data.size());
        EXPECT_EQ(std::memcmp(out.data(), data.data(), data.size()), 0);
        // Declared 1 GiB: fails once the 3 MiB are out, with at most twice that allocated.
        Status big = d->decompress_growing(z, size_t(1) << 30, out);
        ASSERT_FALSE(big);
        EXPECT_NE(big.error().message().find("holds 3145728 bytes"), std::string::npos)
            << big.error().message();
        EXPECT_LE(out.capacity(), size_t(8) << 20);
        Status small = d->decompress_growing(z, data.size() - 1, out);
        ASSERT_FALSE(small);
        EXPECT_NE(small.error().message().find("more than"), std::string::npos) << small.error().message();
        Status cut = d->decompress_growing(std::span<const uint8_t>(z).first(z.size() / 2), data.size(), out);
        EXPECT_FALSE(cut);
    }
}

TEST(MappedFile, FromBytes) {
    auto f = MappedFile::from_bytes({1, 2, 3}, "name");
    EXPECT_EQ(f->path(), "name");
    EXPECT_EQ(f->size(), 3u);
    std::vector<uint8_t> scratch;
    auto r = f->read(1, 2, scratch);
    ASSERT_TRUE(r);
    EXPECT_EQ((*r)[1], 3);
    auto empty = MappedFile::from_bytes({}, "e");
    EXPECT_TRUE(empty->bytes().empty());
    EXPECT_TRUE(empty->read(0, 0, scratch));
    EXPECT_FALSE(empty->read(0, 1, scratch));
}

// The whole reader in pread mode (what happens where mmap fails) sees what the mapped reader sees.
TEST(MappedFile, PreadModeReadsTheSameTrace) {
    for (const char* rel : {"kvm-agent/host-vm2.dat", "io/multi-v6.dat", "io/multi-v7-none.dat"}) {
        auto f = MappedFile::open(iotest::data(rel), false);
        ASSERT_TRUE(f);
        ASSERT_EQ((*f)->mode(), MappedFile::Mode::pread);
        EXPECT_TRUE((*f)->bytes().empty());
        auto a = TraceDatReader::open(std::shared_ptr<const MappedFile>(*f));
        ASSERT_TRUE(a) << a.error().to_string();
        auto b = TraceDatReader::open(iotest::data(rel));
        ASSERT_TRUE(b);
        EXPECT_EQ(a->metadata().kallsyms, b->metadata().kallsyms);
        EXPECT_EQ(a->metadata().event_systems.size(), b->metadata().event_systems.size());
        EXPECT_EQ(a->metadata().saved_cmdlines, b->metadata().saved_cmdlines);
        EXPECT_EQ(a->metadata().options.cpustats, b->metadata().options.cpustats);
        ASSERT_EQ(a->buffers().size(), b->buffers().size());
        for (size_t i = 0; i < a->buffers().size(); ++i) {
            EXPECT_EQ(iotest::buffer_pages(*a, i), iotest::buffer_pages(*b, i)) << rel << " buffer " << i;
        }
    }
}

// copy(): the same bytes in every mode, bounds checked as read().
TEST(MappedFile, CopyReadsTheBytesInEveryMode) {
    const std::string path = iotest::data("kvm/kvm-extra.dat");
    const std::string want = iotest::read_file(path);
    ASSERT_GT(want.size(), 70000u);
    auto mapped = MappedFile::open(path);
    auto pread = MappedFile::open(path, false);
    ASSERT_TRUE(mapped);
    ASSERT_TRUE(pread);
    auto memory = MappedFile::from_bytes(std::vector<uint8_t>(want.begin(), want.end()), "in-memory");
    for (const MappedFile* f : {mapped->get(), pread->get(), memory.get()}) {
        std::vector<uint8_t> out(65536, 0xAA);
        ASSERT_TRUE(f->copy(1234, out.size(), out.data()));
        EXPECT_EQ(std::memcmp(out.data(), want.data() + 1234, out.size()), 0);
        ASSERT_TRUE(f->copy(want.size() - 7, 7, out.data()));
        EXPECT_EQ(std::memcmp(out.data(), want.data() + want.size() - 7, 7), 0);
        Status past = f->copy(want.size() - 7, 8, out.data());
        ASSERT_FALSE(past);
        EXPECT_EQ(past.error().code(), Errc::truncated);
        EXPECT_EQ(past.error().offset(), static_cast<int64_t>(want.size() - 7));
        EXPECT_FALSE(f->copy(UINT64_MAX - 2, 8, out.data()));
    }
}
