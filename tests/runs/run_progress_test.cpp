// The run's progress bar: ETA formatting, the byte position of a merged iteration it is computed
// from (checked against trace-cmd's own account of the CPU data), the process-wide page counter the
// one-pass test relies on, and the bar on a real terminal (script(1) gives the run a pty).
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

#include <ringscope/trace.hpp>

#include "run_cli.hpp"

#include "framework/api/read_position.hpp"
#include "framework/sinks/progress_bar.hpp"

using ringscope::sinks::ProgressBar;
using ringscope::sinks::ProgressState;
using namespace ringscope::test;

namespace {

ringscope::Trace open(const std::string& path) {
    ringscope::TraceOpenOptions o;
    o.load_plugins = false;
    auto t = ringscope::Trace::open(path, o);
    EXPECT_TRUE(t) << path << ": " << (t ? "" : t.error().to_string());
    return std::move(*t);
}

}  // namespace

TEST(ProgressBar, DurationText) {
    EXPECT_EQ(ProgressBar::duration_text(0), "0.0s");
    EXPECT_EQ(ProgressBar::duration_text(0.44), "0.4s");
    EXPECT_EQ(ProgressBar::duration_text(9.94), "9.9s");
    EXPECT_EQ(ProgressBar::duration_text(9.96), "10s");
    EXPECT_EQ(ProgressBar::duration_text(41.6), "42s");
    EXPECT_EQ(ProgressBar::duration_text(59.4), "59s");
    EXPECT_EQ(ProgressBar::duration_text(60), "1m00s");
    EXPECT_EQ(ProgressBar::duration_text(185), "3m05s");
    EXPECT_EQ(ProgressBar::duration_text(3599), "59m59s");
    EXPECT_EQ(ProgressBar::duration_text(3600), "1h00m");
    EXPECT_EQ(ProgressBar::duration_text(7620), "2h07m");
    EXPECT_EQ(ProgressBar::duration_text(-3), "0.0s");
}

TEST(ProgressBar, EtaIsRemainingBytesOverTheByteRate) {
    ProgressState s;
    s.stage = "events";
    s.bytes_total = 1000;
    s.bytes_done = 250;
    s.seconds = 10;  // 25 B/s, 750 B left
    ASSERT_TRUE(ProgressBar::eta_seconds(s));
    EXPECT_DOUBLE_EQ(*ProgressBar::eta_seconds(s), 30.0);
    s.bytes_done = 1000;
    EXPECT_DOUBLE_EQ(*ProgressBar::eta_seconds(s), 0.0);
    // Nothing to tell yet: no position, nothing read, or too early.
    s.bytes_done = 0;
    EXPECT_FALSE(ProgressBar::eta_seconds(s));
    s.bytes_done = 10;
    s.seconds = 0.1;
    EXPECT_FALSE(ProgressBar::eta_seconds(s));
    s.bytes_total = 0;
    s.seconds = 10;
    EXPECT_FALSE(ProgressBar::eta_seconds(s));
}

TEST(ProgressBar, Lines) {
    ProgressState s;
    s.stage = "events";
    s.bytes_total = 40'000'000;
    s.bytes_done = 10'000'000;
    s.events = 500'000;
    s.seconds = 5;  // 2 MB/s: 15 s left
    EXPECT_EQ(ProgressBar::line(s),
              "events           [######                  ]  25% 10.0 MB/40.0 MB 100000 events/s ETA 15s");
    s.seconds = 0.1;
    EXPECT_NE(ProgressBar::line(s).find("ETA --"), std::string::npos) << ProgressBar::line(s);
    s.bytes_total = 0;
    s.seconds = 2;
    EXPECT_EQ(ProgressBar::line(s), "events           500000 events, 250000 events/s, 2.0s");
    ProgressState cmd;
    cmd.stage = "ipt.summary";
    cmd.seconds = 75;
    EXPECT_EQ(ProgressBar::line(cmd), "ipt.summary      running, 1m15s");
}

// An uncompressed file: the totals are trace-cmd's CPU data sizes, and a full pass reads them all.
TEST(ReadPosition, TotalsAreTheFilesCpuData) {
    const std::string path = data("traces/formats-none.dat");
    Cmd dumped = sh("trace-cmd dump --flyrecord '" + path + "'");
    if (dumped.code != 0) GTEST_SKIP() << "trace-cmd dump is not available: " << dumped.err;
    const std::string& dump = dumped.out;
    std::regex cpu(R"(^\s+\d+\s+(\d+)\s+(\d+)\s+\[id, data offset and size\])");
    uint64_t bytes = 0, pages = 0;
    std::istringstream lines(dump);
    std::string line;
    while (std::getline(lines, line)) {
        std::smatch m;
        if (!std::regex_search(line, m, cpu)) continue;
        uint64_t size = std::stoull(m[2]);
        bytes += size;
        pages += (size + 4095) / 4096;  // "4096 [Page size, bytes]"
    }
    ASSERT_GT(bytes, 0u) << dump;

    ringscope::Trace t = open(path);
    EXPECT_EQ(ringscope::api::read_position(t).bytes_total, 0u);  // nothing opened for reading yet
    ASSERT_EQ(t.iterate([](ringscope::Trace&, const ringscope::Event&, int) { return 0; }), 0);
    auto p = ringscope::api::read_position(t);
    EXPECT_EQ(p.bytes_total, bytes);
    EXPECT_EQ(p.pages_total, pages);
    EXPECT_EQ(p.bytes_loaded, bytes);
}

// Compressed (zstd) data: the position moves with the events, from the first page to all of it.
TEST(ReadPosition, FollowsTheMergedIteration) {
    ringscope::Trace t = open(data("traces/full.dat"));
    uint64_t total_events = 0;
    for ([[maybe_unused]] const auto& ev : t.events()) ++total_events;
    ASSERT_GT(total_events, 1000u);

    ringscope::Trace t2 = open(data("traces/full.dat"));
    ringscope::Trace* both[] = {&t2};
    uint64_t n = 0, last = 0, at_half = 0, total = 0;
    bool monotonic = true;
    ringscope::Trace::iterate_multi(both, [&](ringscope::Trace& tr, const ringscope::Event&, int) {
        auto p = ringscope::api::read_position(tr);
        total = p.bytes_total;
        monotonic =
            monotonic && p.bytes_loaded >= last && p.bytes_loaded > 0 && p.bytes_loaded <= p.bytes_total;
        last = p.bytes_loaded;
        if (++n == total_events / 2) at_half = p.bytes_loaded;
        return 0;
    });
    EXPECT_TRUE(monotonic);
    EXPECT_EQ(n, total_events);
    EXPECT_EQ(last, total);
    // Halfway through the events is well inside the data (the CPUs fill pages at similar rates).
    EXPECT_GT(at_half, total / 4) << at_half << " of " << total;
    EXPECT_LT(at_half, total * 3 / 4) << at_half << " of " << total;
}

// The counter the one-pass test reads counts passes: two iterations load every page twice.
TEST(ReadPosition, ProcessPageCounterCountsEveryPass) {
    ringscope::Trace t = open(data("traces/full.dat"));
    const uint64_t before = ringscope::api::pages_loaded_in_process();
    auto none = [](ringscope::Trace&, const ringscope::Event&, int) { return 0; };
    ASSERT_EQ(t.iterate(none), 0);
    const uint64_t pages = ringscope::api::read_position(t).pages_total;
    ASSERT_GT(pages, 0u);
    EXPECT_EQ(ringscope::api::pages_loaded_in_process() - before, pages);
    t.reset();
    ASSERT_EQ(t.iterate(none), 0);
    EXPECT_EQ(ringscope::api::pages_loaded_in_process() - before, 2 * pages);
}

// On a terminal the bar is drawn with a position and an ETA; not with --quiet, not into a pipe.
TEST(ProgressBar, OnlyOnATerminal) {
    const std::string out = tmpdir("pty");
    auto run = [&](const std::string& extra, bool pty) {
        std::string cmd = "'" + cli_path() + "' run '" + config("host-guest.yaml") +
                          "' --set 'outputs.dir=" + out + "' " + extra;
        Cmd c;
        if (pty) {
            // script(1) runs the command on a pty and copies what it wrote (stdout and stderr) to ours.
            std::string quoted;
            for (char ch : cmd) quoted += ch == '"' ? std::string("\\\"") : std::string(1, ch);
            c = sh("script -qec \"" + quoted + "\" /dev/null < /dev/null");
        } else {
            c = sh(cmd + " >/dev/null");  // stderr into a file
        }
        std::string text = pty ? c.out : c.err;
        EXPECT_EQ(c.code, 0) << text << c.err;
        return text;
    };
    std::string tty = run("", true);
    if (tty.find("script:") == 0) GTEST_SKIP() << tty;
    EXPECT_NE(tty.find("\r\033[Kevents "), std::string::npos) << tty;
    // A redraw with the position of the pass and an ETA (the run reads 4 MB of CPU data, which takes
    // a few redraws here; "--" until 0.2 s have passed).
    std::regex bar(
        R"(events +\[[# ]{24}\] +\d+% [0-9.]+ [KM]B/4\.0 MB \d+ events/s ETA (\d+\.\ds|\d+s|\d+m\d\ds|--))");
    EXPECT_TRUE(std::regex_search(tty, bar)) << tty;
    EXPECT_NE(tty.find("wrote "), std::string::npos) << tty;  // the closing summary still comes

    std::string quiet = run("--quiet", true);
    EXPECT_EQ(quiet.find("\033[K"), std::string::npos) << quiet;
    EXPECT_EQ(quiet.find("events/s"), std::string::npos) << quiet;

    std::string piped = run("", false);
    EXPECT_EQ(piped.find("\033[K"), std::string::npos) << piped;
    EXPECT_EQ(piped.find("events/s"), std::string::npos) << piped;
    EXPECT_NE(piped.find("wrote "), std::string::npos) << piped;
}
