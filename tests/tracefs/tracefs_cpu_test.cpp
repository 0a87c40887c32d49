// The per-CPU raw reader (tracefs_cpu_read(3) family) on a private instance with numbered markers:
// every read path returns each marker once, stop() wakes a blocked reader, and the cpu_write
// example behaves as the man page's.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <ringscope/sub_buffer.hpp>
#include <ringscope/tracefs.hpp>

#include "tracefs_test_util.hpp"

using namespace ringscope;
using namespace rs_tracefs_test;

namespace {

// The numbers of the "m=N" markers in raw sub-buffers, in order.
void collect_markers(const uint8_t* data, size_t size, uint32_t subbuf, std::vector<long>& out) {
    SubBufferLayout layout = SubBufferLayout::host();
    layout.subbuf_size = subbuf;
    SubBufferCursor cur(layout);
    for (size_t off = 0; off + subbuf <= size; off += subbuf) {
        ASSERT_TRUE(cur.reset({data + off, subbuf}));
        for (SubBufferRecord r; cur.next(r);) {
            const char* p = static_cast<const char*>(memmem(r.data, r.size, "m=", 2));
            if (p) out.push_back(std::strtol(p + 2, nullptr, 10));
        }
        ASSERT_FALSE(cur.failed());
    }
}

class TracefsCpuTest : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string why;
        root_ = writable_tracefs(why);
        if (root_.empty()) {
            GTEST_SKIP() << "tracefs is not writable here (" << why << ")";
        }
        auto inst = tracefs::Instance::create(unique_name("cpu"), root_);
        ASSERT_TRUE(inst) << inst.error().to_string();
        inst_.emplace(std::move(*inst));
        auto cpus = inst_->cpus();
        ASSERT_TRUE(cpus);
        cpus_ = *cpus;
    }
    void TearDown() override {
        if (inst_) {
            EXPECT_TRUE(inst_->destroy());
        }
    }
    void write_markers(int n) {
        const int fd = ::open(inst_->path("trace_marker").c_str(), O_WRONLY | O_CLOEXEC);
        ASSERT_GE(fd, 0);
        for (int i = 0; i < n; ++i) {
            const std::string s = "m=" + std::to_string(i);
            ASSERT_EQ(::write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size()));
        }
        ::close(fd);
    }
    static void expect_sequence(std::vector<long> got, int n) {
        // One CPU's markers are in order; across CPUs the test thread may have moved.
        std::sort(got.begin(), got.end());
        ASSERT_EQ(got.size(), static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) ASSERT_EQ(got[static_cast<size_t>(i)], i);
    }

    TracefsLock lock_;
    std::string root_;
    std::optional<tracefs::Instance> inst_;
    std::vector<int> cpus_;
};

}  // namespace

TEST_F(TracefsCpuTest, ReadAndFlushReturnEveryMarker) {
    constexpr int kN = 3000;
    write_markers(kN);
    std::vector<long> got;
    for (int cpu : cpus_) {
        auto t = tracefs::TracefsCpu::open(*inst_, cpu, false);
        ASSERT_TRUE(t) << t.error().to_string();
        EXPECT_EQ(static_cast<uint32_t>(t->read_size()), *inst_->subbuf_size());
        std::vector<uint8_t> buf(static_cast<size_t>(t->read_size()));
        // Non-blocking reads give sub-buffers until the writer's page; flush() takes the rest.
        for (int n; (n = t->read(buf.data(), true)) > 0;) {
            std::memset(buf.data() + n, 0, buf.size() - static_cast<size_t>(n));
            collect_markers(buf.data(), buf.size(), static_cast<uint32_t>(buf.size()), got);
        }
        for (int n; (n = t->flush(buf.data())) > 0;) {
            std::memset(buf.data() + n, 0, buf.size() - static_cast<size_t>(n));
            collect_markers(buf.data(), buf.size(), static_cast<uint32_t>(buf.size()), got);
        }
    }
    expect_sequence(got, kN);
}

TEST_F(TracefsCpuTest, BufferedReadGivesWholeSubBuffers) {
    constexpr int kN = 3000;
    write_markers(kN);
    ASSERT_TRUE(inst_->set_tracing_on(false));
    std::vector<long> got;
    for (int cpu : cpus_) {
        auto t = tracefs::TracefsCpu::open(*inst_, cpu, false);
        ASSERT_TRUE(t);
        std::vector<uint8_t> buf(static_cast<size_t>(t->read_size()));
        for (int n; (n = t->buffered_read(buf.data(), true)) > 0;) {
            EXPECT_EQ(n, t->read_size());
            collect_markers(buf.data(), buf.size(), static_cast<uint32_t>(buf.size()), got);
        }
        for (int n; (n = t->flush(buf.data())) > 0;) {
            std::memset(buf.data() + n, 0, buf.size() - static_cast<size_t>(n));
            collect_markers(buf.data(), buf.size(), static_cast<uint32_t>(buf.size()), got);
        }
    }
    expect_sequence(got, kN);
}

TEST_F(TracefsCpuTest, WriteAndPipeToDescriptors) {
    constexpr int kN = 5000;
    write_markers(kN);
    ASSERT_TRUE(inst_->set_tracing_on(false));
    std::vector<long> got;
    const std::string dir = scratch_dir("cpu_write_fd");
    for (size_t i = 0; i < cpus_.size(); ++i) {
        auto t = tracefs::TracefsCpu::open(*inst_, cpus_[i], false);
        ASSERT_TRUE(t);
        const size_t sb = static_cast<size_t>(t->read_size());
        std::vector<uint8_t> data;
        if (i % 2 == 0) {
            // write(): whole sub-buffers into a file, then flush_write() for the rest.
            const std::string path = dir + "/cpu" + std::to_string(cpus_[i]);
            const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            ASSERT_GE(fd, 0);
            for (int n; (n = t->write(fd, true)) > 0;) EXPECT_EQ(n % static_cast<int>(sb), 0);
            for (int n; (n = t->flush_write(fd)) > 0;) {
            }
            ::close(fd);
            const std::string bytes = read_file(path);
            data.assign(bytes.begin(), bytes.end());
        } else {
            // pipe(): one splice into a pipe the caller owns.
            int p[2];
            ASSERT_EQ(::pipe(p), 0);
            fcntl(p[0], F_SETPIPE_SZ, 1 << 20);
            for (int n; (n = t->pipe(p[1], true)) > 0;) {
                std::vector<uint8_t> chunk(static_cast<size_t>(n));
                size_t got_n = 0;
                while (got_n < chunk.size()) {
                    const ssize_t r = ::read(p[0], chunk.data() + got_n, chunk.size() - got_n);
                    ASSERT_GT(r, 0);
                    got_n += static_cast<size_t>(r);
                }
                data.insert(data.end(), chunk.begin(), chunk.end());
            }
            ::close(p[0]);
            ::close(p[1]);
            std::vector<uint8_t> buf(sb);
            for (int n; (n = t->flush(buf.data())) > 0;) {
                std::memset(buf.data() + n, 0, sb - static_cast<size_t>(n));
                data.insert(data.end(), buf.begin(), buf.end());
            }
        }
        ASSERT_EQ(data.size() % sb, 0u);
        collect_markers(data.data(), data.size(), static_cast<uint32_t>(sb), got);
    }
    expect_sequence(got, kN);
}

TEST_F(TracefsCpuTest, StopWakesABlockedReader) {
    auto t = tracefs::TracefsCpu::open(*inst_, cpus_[0], false);
    ASSERT_TRUE(t);
    const std::string dir = scratch_dir("cpu_stop");
    const int fd = ::open((dir + "/out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    std::atomic<bool> done{false};
    auto reader = std::async(std::launch::async, [&] {
        int last = 0;
        while (!done) last = t->write(fd, false);  // blocks: nothing is traced
        return last;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    done = true;
    const int r = t->stop();
    EXPECT_TRUE(r == 0 || r == 1) << r;
    ASSERT_EQ(reader.wait_for(std::chrono::seconds(5)), std::future_status::ready)
        << "stop() did not wake the reader";
    EXPECT_EQ(reader.get(), 0);
    // After stop() reads do not block.
    std::vector<uint8_t> buf(static_cast<size_t>(t->read_size()));
    EXPECT_EQ(t->read(buf.data(), false), 0);
    ::close(fd);
}

TEST(CpuWriteExample, RecordsMarkersLikeTheManPage) {
    REQUIRE_TRACEFS(root);
    TracefsLock lock;
    if (instance_exists(root, "cpu_write")) {
        GTEST_SKIP() << "an instance named cpu_write exists already";
    }
    const std::string dir = scratch_dir("cpu_write_example");
    const std::string out = dir + "/cpu0.raw";
    // The example runs 2 s; markers go to its instance from CPU 0 meanwhile.
    const std::string cmd =
        "(" CPU_WRITE_BIN " 0 " + out + " 2 > " + dir +
        "/stdout.txt 2>&1 & P=$!; for i in $(seq 50); do [ -d " + root +
        "/instances/cpu_write ] && break; sleep 0.05; done; taskset -c 0 " MARKER_WRITER_BIN " " + root +
        "/instances/cpu_write/trace_marker 2000 2>/dev/null; wait $P)";
    ASSERT_EQ(sh(cmd), 0) << read_file(dir + "/stdout.txt");
    const std::string log = read_file(dir + "/stdout.txt");
    EXPECT_NE(log.find("stopping\n"), std::string::npos) << log;
    EXPECT_NE(log.find("joining "), std::string::npos) << log;
    EXPECT_NE(log.find("flushed 0\n"), std::string::npos) << log;
    EXPECT_FALSE(instance_exists(root, "cpu_write"));
    const std::string bytes = read_file(out);
    ASSERT_GT(bytes.size(), 0u);
    const uint32_t sb = static_cast<uint32_t>(::sysconf(_SC_PAGESIZE));
    std::vector<uint8_t> data(bytes.begin(), bytes.end());
    data.resize((data.size() + sb - 1) / sb * sb, 0);
    std::vector<long> got;
    SubBufferLayout layout = SubBufferLayout::host();
    SubBufferCursor cur(layout);
    for (size_t off = 0; off < data.size(); off += sb) {
        ASSERT_TRUE(cur.reset({data.data() + off, sb}));
        for (SubBufferRecord r; cur.next(r);) {
            const char* p = static_cast<const char*>(memmem(r.data, r.size, "n=", 2));
            if (p) got.push_back(std::strtol(p + 2, nullptr, 10));
        }
    }
    ASSERT_EQ(got.size(), 2000u);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], static_cast<long>(i));
}

// The reader's mechanics without tracefs: a pipe stands in for trace_pipe_raw (from_fd), so these
// run everywhere.
TEST(TracefsCpuFromFd, ReadsWritesAndStopsOnAPipe) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    auto t = tracefs::TracefsCpu::from_fd(p[0], 4096, false);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->read_size(), 4096);
    std::vector<uint8_t> page(4096 * 3);
    for (size_t i = 0; i < page.size(); ++i) page[i] = static_cast<uint8_t>(i * 7);
    ASSERT_EQ(::write(p[1], page.data(), page.size()), static_cast<ssize_t>(page.size()));

    std::vector<uint8_t> buf(4096);
    ASSERT_EQ(t->read(buf.data(), false), 4096);
    EXPECT_EQ(0, std::memcmp(buf.data(), page.data(), 4096));
    ASSERT_EQ(t->buffered_read(buf.data(), false), 4096);  // through the splice pipe
    EXPECT_EQ(0, std::memcmp(buf.data(), page.data() + 4096, 4096));
    // The rest of the batch is served from the pipe first, even after the source is drained.
    ASSERT_EQ(t->buffered_read(buf.data(), true), 4096);
    EXPECT_EQ(0, std::memcmp(buf.data(), page.data() + 8192, 4096));
    EXPECT_EQ(t->read(buf.data(), true), 0);  // nothing there: non-blocking returns 0

    // write() into a file: what was spliced arrives whole.
    const std::string dir = scratch_dir("from_fd");
    const int fd = ::open((dir + "/out").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(p[1], page.data(), 8192), 8192);
    int total = 0;
    for (int n; (n = t->write(fd, true)) > 0;) total += n;
    EXPECT_EQ(total, 8192);
    ::close(fd);
    const std::string out = read_file(dir + "/out");
    ASSERT_EQ(out.size(), 8192u);
    EXPECT_EQ(0, std::memcmp(out.data(), page.data(), 8192));

    // A reader blocked on an empty source wakes up on stop().
    std::atomic<bool> done{false};
    auto reader = std::async(std::launch::async, [&] {
        int last = -2;
        while (!done) last = t->read(buf.data(), false);
        return last;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    done = true;
    EXPECT_GE(t->stop(), 0);
    ASSERT_EQ(reader.wait_for(std::chrono::seconds(5)), std::future_status::ready);
    EXPECT_EQ(reader.get(), 0);
    // flush() after stop: non-blocking, 0 at the end.
    EXPECT_EQ(t->flush(buf.data()), 0);
    ::close(p[1]);
    EXPECT_FALSE(tracefs::TracefsCpu::from_fd(::dup(0), 0, false));  // a sub-buffer size is needed
}
