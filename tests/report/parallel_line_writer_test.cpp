// ParallelLineWriter: lines formatted by several workers come out in the order they were added,
// across many batches (the slot ring wraps) and with lines of the caller's own in between drains.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "framework/output/parallel_line_writer.hpp"

namespace {

using ringscope::output::LineBatch;
using ringscope::output::LineJob;
using ringscope::output::OutputBuffer;
using ringscope::output::ParallelLineWriter;

// Each job's payload is its number; the worker prints "n=NUMBER pid=PID\n".
void format_batch(LineBatch& batch) {
    for (const LineJob& j : batch.jobs) {
        uint64_t n = 0;
        std::memcpy(&n, batch.payload(j).data(), sizeof n);
        const std::string line = "n=" + std::to_string(n) + " pid=" + std::to_string(j.pid) + "\n";
        batch.text.append(line);
    }
}

std::string run(int threads, uint64_t events, uint64_t serial_every) {
    OutputBuffer out;
    std::string expected;
    {
        ParallelLineWriter w(out, threads, format_batch);
        for (uint64_t n = 0; n < events; ++n) {
            if (serial_every && n % serial_every == 0) {
                w.drain();
                const std::string line = "serial " + std::to_string(n) + "\n";
                out.append(line);
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

TEST(ParallelLineWriter, NothingAddedWritesNothing) {
    OutputBuffer out;
    {
        ParallelLineWriter w(out, 2, format_batch);
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
