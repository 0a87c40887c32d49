// Decompress-ahead (report -j): the next chunk of each CPU decompressed by a task on another
// thread gives the same records in the same order, decompresses each chunk once, keeps at most two
// chunks ahead per CPU, and a corrupt chunk gives the same error (and, through the CLI, the same
// output and exit code) as the walk on one thread.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "framework/engine/event_merger.hpp"
#include "framework/engine/trace_file.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "framework/output/output_buffer.hpp"
#include "framework/output/parallel_line_writer.hpp"
#include "test_trace.hpp"
#include "tests/support/file_text.hpp"

namespace ringscope::engine {
namespace {

// Runs every task at once, inside post(): the chunk is always ready before it is needed.
struct InlineRunner final : io::TaskRunner {
    int posted = 0;
    bool post(std::function<void()> task) override {
        ++posted;
        task();
        return true;
    }
};

// Keeps the tasks and never runs them: the reader must run them itself.
struct IdleRunner final : io::TaskRunner {
    std::vector<std::function<void()>> kept;
    bool post(std::function<void()> task) override {
        kept.push_back(std::move(task));
        return true;
    }
};

// Takes no work: everything stays on the caller's thread.
struct ClosedRunner final : io::TaskRunner {
    bool post(std::function<void()>) override { return false; }
};

// One real thread.
class ThreadRunner final : public io::TaskRunner {
  public:
    ThreadRunner() : thread_([this] { loop(); }) {}
    ~ThreadRunner() override {
        {
            std::lock_guard lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    bool post(std::function<void()> task) override {
        {
            std::lock_guard lock(mu_);
            tasks_.push_back(std::move(task));
        }
        cv_.notify_one();
        return true;
    }

  private:
    void loop() {
        std::unique_lock lock(mu_);
        for (;;) {
            cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
            if (tasks_.empty()) return;
            auto t = std::move(tasks_.front());
            tasks_.pop_front();
            lock.unlock();
            t();
            lock.lock();
        }
    }
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> tasks_;
    bool stop_ = false;
    std::thread thread_;
};

// Two CPUs of 60 pages each, zstd in chunks of 10 pages; the events are sched_wakeup records
// (zero fields) at interleaved times, so report prints them all.
constexpr uint64_t kChunkPages = 10;

std::string make_trace() {
    auto base = TraceFile::open(test::data_path("traces/basic.dat"), OpenOptions{});
    if (!base) throw std::runtime_error(base.error().to_string());
    const EventType* wakeup = (*base)->find_type("sched", "sched_wakeup");
    if (!wakeup) throw std::runtime_error("no sched_wakeup in basic.dat");
    std::vector<std::vector<std::vector<uint8_t>>> cpus(2);
    uint64_t ts = 1000000;
    for (int page = 0; page < 60; ++page) {
        for (int cpu = 0; cpu < 2; ++cpu) {
            test::PageBuilder b(ts);
            for (int i = 0; i < 30; ++i) b.event(ts += 7 + static_cast<uint64_t>(cpu), wakeup->id, 12);
            cpus[static_cast<size_t>(cpu)].push_back(b.build());
        }
    }
    return test::write_trace(cpus, true);
}

// The file offset of chunk N of CPU entry C of the top buffer (its 8-byte header).
uint64_t chunk_offset(const std::string& path, size_t cpu, size_t n) {
    auto r = io::TraceDatReader::open(path);
    if (!r) throw std::runtime_error(r.error().to_string());
    const uint64_t at = r->buffers()[0].cpus[cpu].offset;
    std::ifstream f(path, std::ios::binary);
    auto u32 = [&](uint64_t off) {
        uint32_t v = 0;
        f.seekg(static_cast<std::streamoff>(off));
        f.read(reinterpret_cast<char*>(&v), 4);
        return v;
    };
    const uint32_t count = u32(at);
    if (n >= count) throw std::runtime_error("no chunk " + std::to_string(n));
    uint64_t p = at + 4;
    for (size_t i = 0; i < n; ++i) p += 8 + u32(p);
    return p;
}

struct Walk {
    std::vector<std::pair<uint64_t, uint64_t>> records;  // (ts, file offset)
    std::string error;
    uint64_t decompressions = 0, ahead = 0;
};

Walk walk(const std::string& path, std::shared_ptr<io::TaskRunner> runner) {
    auto file = TraceFile::open(path, OpenOptions{});
    if (!file) throw std::runtime_error(file.error().to_string());
    auto streams = (*file)->open_streams(0);
    if (!streams) throw std::runtime_error(streams.error().to_string());
    EventMerger m;
    int n = 0;
    for (auto& s : *streams) m.add(MergeSource{file->get(), 0, 0, n++, std::move(s)});
    if (runner) m.decompress_ahead(runner);
    Walk w;
    const Record* rec;
    MergeSource* src;
    while (m.next(rec, src)) w.records.emplace_back(rec->ts, rec->offset);
    if (!m.status()) w.error = m.status().error().to_string();
    for (auto& s : m.sources()) {
        w.decompressions += s.stream.pages().decompressions();
        w.ahead += s.stream.pages().decompressed_ahead();
    }
    return w;
}

// Chunks of the top buffer, and how many CPUs have any.
std::pair<uint64_t, uint64_t> chunk_total(const std::string& path) {
    auto r = io::TraceDatReader::open(path);
    uint64_t n = 0, cpus = 0;
    for (size_t c = 0; c < r->buffers()[0].cpus.size(); ++c) {
        const size_t k = r->cpu_pages(0, c)->chunk_count();
        n += k;
        cpus += k > 0;
    }
    return {n, cpus};
}

TEST(DecompressAhead, SameRecordsInOrderEachChunkOnce) {
    const std::string path = make_trace();
    const Walk plain = walk(path, nullptr);
    const auto [chunks, cpus] = chunk_total(path);
    ASSERT_EQ(chunks, 12u);
    ASSERT_GT(plain.records.size(), 1000u);
    EXPECT_TRUE(plain.error.empty()) << plain.error;
    EXPECT_EQ(plain.decompressions, chunks);
    EXPECT_EQ(plain.ahead, 0u);
    for (int i = 0; i < 3; ++i) {
        const Walk w = walk(path, std::make_shared<ThreadRunner>());
        EXPECT_EQ(w.records, plain.records);
        EXPECT_TRUE(w.error.empty()) << w.error;
        EXPECT_EQ(w.decompressions, chunks);
        EXPECT_GT(w.ahead, 0u);
    }
    auto inline_runner = std::make_shared<InlineRunner>();
    const Walk in = walk(path, inline_runner);
    EXPECT_EQ(in.records, plain.records);
    EXPECT_EQ(in.decompressions, chunks);
    // every chunk but the first of each CPU came from the task
    EXPECT_EQ(in.ahead, chunks - cpus);
    // Tasks that never run (a runner that stopped): the reader runs them itself.
    const Walk idle = walk(path, std::make_shared<IdleRunner>());
    EXPECT_EQ(idle.records, plain.records);
    EXPECT_EQ(idle.decompressions, chunks);
    const Walk closed = walk(path, std::make_shared<ClosedRunner>());
    EXPECT_EQ(closed.records, plain.records);
    EXPECT_EQ(closed.ahead, 0u);
}

TEST(DecompressAhead, AtMostOneChunkAheadPerCpu) {
    const std::string path = make_trace();
    auto r = io::TraceDatReader::open(path);
    ASSERT_TRUE(r);
    auto pages = r->cpu_pages(0, 0);
    ASSERT_TRUE(pages);
    ASSERT_EQ(pages->chunk_count(), 6u);
    auto runner = std::make_shared<InlineRunner>();
    pages->decompress_ahead(runner);
    for (uint64_t i = 0; i < pages->page_count(); ++i) {
        auto p = pages->next();
        ASSERT_TRUE(p) << p.error().to_string();
        // only the two chunks after page i's have been decompressed ahead
        const uint64_t chunk = i / kChunkPages;
        EXPECT_EQ(static_cast<uint64_t>(runner->posted),
                  std::min<uint64_t>(chunk + 2, pages->chunk_count() - 1))
            << "page " << i;
    }
    EXPECT_EQ(pages->decompressions(), pages->chunk_count());
    // Going back: no task for the chunks after it.
    const int posted = runner->posted;
    ASSERT_TRUE(pages->page(0));
    EXPECT_EQ(runner->posted, posted);
    EXPECT_EQ(pages->decompressions(), pages->chunk_count() + 1);
}

TEST(DecompressAhead, CorruptChunkSameErrorAsOneThread) {
    const std::string path = make_trace();
    const uint64_t bad = chunk_offset(path, 0, 3);
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(bad + 8));  // the zstd frame's magic
        f.write("XXXX", 4);
    }
    const Walk plain = walk(path, nullptr);
    ASSERT_FALSE(plain.error.empty());
    EXPECT_NE(plain.error.find("chunk 3 does not decompress"), std::string::npos) << plain.error;
    ASSERT_GT(plain.records.size(), 0u);
    for (int i = 0; i < 3; ++i) {
        const Walk w = walk(path, std::make_shared<ThreadRunner>());
        EXPECT_EQ(w.error, plain.error);
        EXPECT_EQ(w.records, plain.records);
    }
    const Walk in = walk(path, std::make_shared<InlineRunner>());
    EXPECT_EQ(in.error, plain.error);
    EXPECT_EQ(in.records, plain.records);
}

struct Cli {
    int rc = -1;
    std::string out, err;
};

Cli report(const std::string& args) {
    const std::string err_path =
        (std::filesystem::temp_directory_path() / "ringscope-ahead-err.txt").string();
    const std::string cmd =
        std::string(RINGSCOPE_BINARY_DIR) + "/ringscope report " + args + " 2>" + err_path;
    Cli r;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    const int status = pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.err = ringscope::test::read_file(err_path);
    std::filesystem::remove(err_path);
    return r;
}

TEST(DecompressAhead, ReportCorruptChunkSameOutputErrorAndExitCodeWithTwoThreads) {
    const std::string path = make_trace();
    const Cli good1 = report("-N -j 1 " + path);
    const Cli good2 = report("-N -j 2 " + path);
    ASSERT_EQ(good1.rc, 0) << good1.err;
    EXPECT_EQ(good2.rc, 0) << good2.err;
    EXPECT_EQ(good2.out, good1.out);
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(chunk_offset(path, 1, 4) + 8));
        f.write("XXXX", 4);
    }
    const Cli bad1 = report("-N -j 1 " + path);
    EXPECT_EQ(bad1.rc, 1);
    EXPECT_EQ(std::count(bad1.err.begin(), bad1.err.end(), '\n'), 1) << bad1.err;
    EXPECT_NE(bad1.err.find("chunk 4 does not decompress"), std::string::npos) << bad1.err;
    EXPECT_GT(bad1.out.size(), 1000u);
    EXPECT_LT(bad1.out.size(), good1.out.size());
    for (int i = 0; i < 3; ++i) {
        const Cli bad2 = report("-N -j 2 " + path);
        EXPECT_EQ(bad2.rc, bad1.rc);
        EXPECT_EQ(bad2.err, bad1.err);
        EXPECT_EQ(bad2.out, bad1.out);
    }
}

// The runner of report's writer: tasks run on its worker; once the writer is gone, post() says no.
TEST(DecompressAhead, ParallelLineWriterRunsTasksAndRefusesThemAfterwards) {
    std::shared_ptr<io::TaskRunner> runner;
    std::FILE* sink = std::fopen("/dev/null", "w");
    ASSERT_NE(sink, nullptr);
    {
        output::OutputBuffer out(sink);
        output::ParallelLineWriter w(
            out, 2, [](const output::LineBatch&, std::span<const output::LineJob>, output::OutputBuffer&) {});
        runner = w.task_runner();
        std::mutex mu;
        std::condition_variable cv;
        bool ran = false;
        std::thread::id on;
        ASSERT_TRUE(runner->post([&] {
            std::lock_guard lock(mu);
            ran = true;
            on = std::this_thread::get_id();
            cv.notify_all();
        }));
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return ran; });
        EXPECT_NE(on, std::this_thread::get_id());
    }
    EXPECT_FALSE(runner->post([] {}));
    std::fclose(sink);
    // One thread: no worker to run tasks.
    std::FILE* sink1 = std::fopen("/dev/null", "w");
    output::OutputBuffer out1(sink1);
    {
        output::ParallelLineWriter w1(
            out1, 1,
            [](const output::LineBatch&, std::span<const output::LineJob>, output::OutputBuffer&) {});
        EXPECT_FALSE(w1.task_runner()->post([] {}));
    }
    std::fclose(sink1);
}

}  // namespace
}  // namespace ringscope::engine
