// ParallelLineWriter: lines formatted by several threads come out in the order they were added,
// across many batches (the slot ring wraps), with lines of the caller's own in between drains or
// added as finished lines.
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <string>

#include "framework/output/parallel_line_writer.hpp"

namespace {

using ringscope::output::LineBatch;
using ringscope::output::LineJob;
using ringscope::output::OutputBuffer;
using ringscope::output::ParallelLineWriter;

// Each job's payload is its number; the worker prints "n=NUMBER pid=PID\n".
void format_jobs(const LineBatch& batch, std::span<const LineJob> jobs, OutputBuffer& text) {
    for (const LineJob& j : jobs) {
        EXPECT_FALSE(j.text);
        uint64_t n = 0;
        std::memcpy(&n, batch.payload(j).data(), sizeof n);
        const std::string line = "n=" + std::to_string(n) + " pid=" + std::to_string(j.pid) + "\n";
        text.append(line);
    }
}

// Every serial_every-th line is the caller's own: written after a drain, or added as a finished line.
std::string run(int threads, uint64_t events, uint64_t serial_every, bool finished_lines = false) {
    OutputBuffer out;
    std::string expected;
    {
        ParallelLineWriter w(out, threads, format_jobs);
        for (uint64_t n = 0; n < events; ++n) {
            if (serial_every && n % serial_every == 0) {
                const std::string line = "serial " + std::to_string(n) + "\n";
                if (finished_lines) {
                    w.add_line(line);
                } else {
                    w.drain();
                    out.append(line);
                }
                expected += line;
                continue;
            }
            LineJob j;
            j.pid = static_cast<int>(n % 7);
            w.add(j, {reinterpret_cast<const uint8_t*>(&n), sizeof n});
            expected += "n=" + std::to_string(n) + " pid=" + std::to_string(j.pid) + "\n";
        }
        w.drain();
    }
    EXPECT_EQ(std::string(out.view()), expected) << threads << " threads, " << events << " events";
    return std::string(out.view());
}

}  // namespace

TEST(ParallelLineWriter, KeepsTheOrderOverManyBatches) {
    for (int threads : {1, 2, 3, 8}) run(threads, 100000, 0);
}

TEST(ParallelLineWriter, CallerLinesBetweenDrainsStayInPlace) {
    for (int threads : {1, 2, 4}) {
        run(threads, 30000, 997);
        run(threads, 2000, 3);
    }
}

TEST(ParallelLineWriter, FinishedLinesStayInPlace) {
    for (int threads : {1, 2, 4}) {
        run(threads, 30000, 997, true);
        run(threads, 20000, 3, true);
        run(threads, 5000, 1, true);
    }
}

TEST(ParallelLineWriter, NothingAddedWritesNothing) {
    OutputBuffer out;
    {
        ParallelLineWriter w(out, 2, format_jobs);
        w.drain();
        w.drain();
    }
    EXPECT_TRUE(out.view().empty());
}

TEST(OutputBuffer, InMemoryGrowsAndKeepsEverything) {
    OutputBuffer out(16);
    std::string want;
    for (int i = 0; i < 5000; ++i) {
        const std::string piece = std::to_string(i) + ",";
        out.append(piece);
        out.push_back(';');
        out.append_repeat('x', static_cast<size_t>(i % 5));
        char* p = out.reserve(3);
        std::memcpy(p, "abc", 3);
        out.commit(3);
        want += piece + ";" + std::string(static_cast<size_t>(i % 5), 'x') + "abc";
    }
    EXPECT_TRUE(out.flush());
    EXPECT_EQ(std::string(out.view()), want);
    out.clear();
    EXPECT_TRUE(out.view().empty());
}

TEST(OutputBuffer, UnbufferedBlocksKeepTheirPlaceInAFile) {
    std::FILE* f = std::tmpfile();
    ASSERT_NE(f, nullptr);
    std::string want;
    {
        OutputBuffer out(f, 4096);
        for (int i = 0; i < 50; ++i) {
            const std::string small = "line " + std::to_string(i) + "\n";
            const std::string large(static_cast<size_t>(70000 + i), static_cast<char>('a' + i % 26));
            out.append(small);
            out.append_unbuffered(large);
            out.append_unbuffered(small);
            want += small + large + small;
        }
        EXPECT_TRUE(out.flush());
    }
    std::rewind(f);
    std::string got;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) got.append(buf, n);
    std::fclose(f);
    EXPECT_EQ(got.size(), want.size());
    EXPECT_TRUE(got == want);
}
