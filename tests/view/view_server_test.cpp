// `ringscope view` over HTTP on the committed traces: /api/meta's counts are report's, /api/events
// of a range is report's lines of that range, /api/cpus at any width has at most that many slices
// per lane and covers the busy time sched_switch gives (worked out here from report's lines), and
// bad requests are 400s that leave the server up.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "view_client.hpp"

namespace fs = std::filesystem;

namespace ringscope::test {
namespace {

using json = nlohmann::json;

const std::vector<std::string> kTraces = {"basic.dat",      "dropped.dat",      "formats-none.dat",
                                          "formats-v6.dat", "formats-zstd.dat", "full.dat",
                                          "function.dat",   "instances.dat"};

json get_json(const ViewServer& s, const std::string& target, int want = 200) {
    const HttpAnswer a = http_get(s.port(), target);
    EXPECT_EQ(a.status, want) << target << ": " << a.body;
    EXPECT_EQ(a.content_type, "application/json") << target;
    return json::parse(a.body, nullptr, false);
}

// Event names as report prints them ("sched_switch"), counted from its lines.
std::map<std::string, uint64_t> report_name_counts(const ReportLines& r) {
    static const std::regex line(R"(\[(\d+)\]\s+(?:\S+\s+)?\d+\.\d+: ([^ :]+):)");
    std::map<std::string, uint64_t> c;
    std::smatch m;
    for (const auto& s : r.lines)
        if (s.rfind("CPU:", 0) != 0 && std::regex_search(s, m, line)) ++c[m[2]];
    return c;
}

TEST(ViewServer, MetaCountsAreReports) {
    for (const auto& name : kTraces) {
        ViewServer s({"--port", "0", trace_path(name)});
        ASSERT_NE(s.port(), 0) << name << ": " << s.first_line();
        const json meta = get_json(s, "/api/meta");
        std::map<std::string, uint64_t> counts;
        for (const auto& e : meta["events"]) {
            const std::string full = e["name"];
            counts[full.substr(full.find(':') + 1)] += e["count"].get<uint64_t>();
        }
        const ReportLines r = report_lines(trace_path(name));
        ASSERT_FALSE(r.lines.empty()) << name;
        EXPECT_EQ(counts, report_name_counts(r)) << name;
        EXPECT_LE(meta["start"].get<uint64_t>(), meta["end"].get<uint64_t>());
        EXPECT_EQ(s.stop(), 0) << name << ": SIGTERM ends the server with 0";
    }
}

TEST(ViewServer, EventsOfARangeAreReportsLines) {
    // function.dat's lines are indented by the function plugin from the calls it saw before: a
    // range printed on its own (report --from/--to) is compared with report's own such run.
    for (const std::string name : {"basic.dat", "dropped.dat", "instances.dat", "function.dat"}) {
        const ReportLines r = report_lines(trace_path(name));
        ASSERT_GT(r.lines.size(), 10u) << name;
        ViewServer s({"--port", "0", trace_path(name)});
        ASSERT_NE(s.port(), 0) << name;
        // The middle third of the trace, bounds on events' own times (inclusive) and between them.
        const uint64_t first = r.ts.front(), last = r.ts.back();
        const uint64_t from = first + (last - first) / 3, to = first + 2 * (last - first) / 3;
        for (auto [a, b] : {std::pair{from, to}, std::pair{r.ts[r.ts.size() / 2], r.ts[r.ts.size() / 2]},
                            std::pair{first, last}}) {
            std::vector<std::string> want;
            for (size_t i = 0; i < r.lines.size(); ++i)
                if (r.ts[i] >= a && r.ts[i] <= b) want.push_back(r.lines[i]);
            auto secs = [](uint64_t ns) {
                return std::to_string(ns / 1000000000) + "." +
                       std::to_string(1000000000 + ns % 1000000000).substr(1);
            };
            auto ranged =
                split_lines(run_shell("'" + ringscope_bin() + "' report --from " + secs(a) + " --to " +
                                      secs(b) + " '" + trace_path(name) + "' 2>/dev/null")
                                .out);
            ranged.erase(ranged.begin());  // cpus=N
            if (name == "function.dat") want = ranged;
            EXPECT_EQ(ranged.size(), want.size()) << name;
            const json ev = get_json(
                s, "/api/events?from=" + std::to_string(a) + "&to=" + std::to_string(b) + "&limit=100000");
            ASSERT_TRUE(ev.is_object()) << name;
            EXPECT_EQ(ev["lines"].get<std::vector<std::string>>(), want)
                << name << " [" << a << ", " << b << "]";
            EXPECT_EQ(ev["total"].get<uint64_t>(), want.size());
            EXPECT_FALSE(ev["truncated"].get<bool>());
        }
        // limit: the first N lines, the total, truncated.
        const json lim = get_json(s, "/api/events?limit=5");
        EXPECT_EQ(lim["lines"].size(), 5u);
        EXPECT_EQ(lim["total"].get<uint64_t>(), r.lines.size());
        EXPECT_TRUE(lim["truncated"].get<bool>());
        EXPECT_EQ(lim["lines"][0].get<std::string>(), r.lines[0]);
    }
}

// Narrow ranges (a few events, starting inside a sub-buffer and between two events) are
// answered from the index's stream positions: still exactly the lines of report --from --to run
// from the file's start, drop notices included (dropped.dat loses events mid-trace). (A range's
// comms can differ from the whole report's: a plugin registers names as it prints.)
TEST(ViewServer, NarrowRangesAreReportsLines) {
    auto secs = [](uint64_t ns) {
        return std::to_string(ns / 1000000000) + "." + std::to_string(1000000000 + ns % 1000000000).substr(1);
    };
    for (const std::string name : {"basic.dat", "dropped.dat", "full.dat"}) {
        const ReportLines r = report_lines(trace_path(name));
        ASSERT_GT(r.lines.size(), 500u) << name;
        ViewServer s({"--port", "0", trace_path(name)});
        ASSERT_NE(s.port(), 0) << name;
        size_t checked = 0, dropped = 0;
        std::vector<size_t> starts;
        for (size_t i = 7; i + 8 < r.lines.size(); i += r.lines.size() / 25) starts.push_back(i);
        for (size_t i = 0; i + 8 < r.lines.size() && starts.size() < 40; ++i)
            if (r.lines[i].rfind("CPU:", 0) == 0) starts.push_back(i);  // a drop notice's event first
        for (size_t i : starts) {
            // [an event's time, a few events later], and the same starting 1 ns after it.
            for (uint64_t a : {r.ts[i], r.ts[i] + 1}) {
                const uint64_t b = r.ts[i + 6];
                if (a > b) continue;
                auto want =
                    split_lines(run_shell("'" + ringscope_bin() + "' report --from " + secs(a) + " --to " +
                                          secs(b) + " '" + trace_path(name) + "' 2>/dev/null")
                                    .out);
                ASSERT_FALSE(want.empty());
                want.erase(want.begin());  // cpus=N
                const json ev = get_json(s, "/api/events?from=" + std::to_string(a) +
                                                "&to=" + std::to_string(b) + "&limit=100000");
                ASSERT_TRUE(ev.is_object()) << name;
                EXPECT_EQ(ev["lines"].get<std::vector<std::string>>(), want)
                    << name << " [" << a << ", " << b << "]";
                EXPECT_EQ(ev["total"].get<uint64_t>(), want.size()) << name;
                EXPECT_GE(want.size(), 1u) << name;
                for (const auto& l : want) dropped += l.find("EVENTS DROPPED]") != std::string::npos;
                ++checked;
            }
        }
        EXPECT_GT(checked, 40u) << name;
        if (name == "dropped.dat") {
            EXPECT_GT(dropped, 0u) << "no range holds a drop notice";
        }
        EXPECT_EQ(s.stop(), 0) << name;
    }
}

// A CPU of one buffer: its instance ("" for the top buffer) and the CPU.
using BufferCpu = std::pair<std::string, int>;

// Busy time per CPU of each buffer from report's sched_switch lines (an instance's prefixed
// "NAME:"): from each switch to a task other than idle until the next switch on that CPU of that
// buffer (the last one until the trace's end).
std::map<BufferCpu, uint64_t> busy_from_report(const ReportLines& r, uint64_t end) {
    // The sched plugin's "prev:PID [PRIO] S ==> next:PID [PRIO]", or the format's "next_pid=PID".
    static const std::regex sw(
        R"(^(?:(\S+):\s)?.*?\[(\d+)\].*: sched_switch: .*(?:==> .*:(\d+) \[\d+\]|next_pid=(\d+)))");
    std::map<BufferCpu, std::pair<uint64_t, int>> open;  // (since, pid)
    std::map<BufferCpu, uint64_t> busy;
    std::smatch m;
    for (size_t i = 0; i < r.lines.size(); ++i) {
        if (!std::regex_search(r.lines[i], m, sw)) continue;
        const BufferCpu cpu{m[1].str(), std::stoi(m[2])};
        const int next = std::stoi(m[3].matched ? m[3] : m[4]);
        if (auto it = open.find(cpu); it != open.end() && it->second.second != 0)
            busy[cpu] += r.ts[i] - it->second.first;
        open[cpu] = {r.ts[i], next};
    }
    for (auto& [cpu, o] : open)
        if (o.second != 0) busy[cpu] += end - o.first;
    return busy;
}

// instances.dat's sched_switch events are all in its instance ringscope_a: each instance has CPU
// lanes of its own ("0/ringscope_a:1", labelled "ringscope_a/CPU 1").
TEST(ViewServer, CpuLanesKeepWidthAndBusyTime) {
    for (const auto& name : {"basic.dat", "full.dat", "dropped.dat", "instances.dat"}) {
        ViewServer s({"--port", "0", trace_path(name)});
        ASSERT_NE(s.port(), 0);
        const json meta = get_json(s, "/api/meta");
        const uint64_t start = meta["start"], end = meta["end"];
        const auto want = busy_from_report(report_lines(trace_path(name)), end);
        ASSERT_FALSE(want.empty()) << name << " has no sched_switch";
        // 20000 pixels is finer than the summaries (decoded again); 1..1000 come from the buckets.
        for (uint32_t width : {20000u, 1000u, 100u, 10u, 1u}) {
            const json c = get_json(s, "/api/cpus?from=" + std::to_string(start) +
                                           "&to=" + std::to_string(end) + "&width=" + std::to_string(width));
            EXPECT_EQ(c["exact"].get<bool>(), width == 20000u) << name;
            std::map<BufferCpu, uint64_t> got;
            for (size_t l = 0; l < c["lanes"].size(); ++l) {
                const auto& slices = c["lanes"][l]["slices"];
                EXPECT_LE(slices.size(), width) << name << " lane " << l;
                uint64_t prev_end = 0;
                for (const auto& sl : slices) {
                    const uint64_t a = sl[0], b = sl[1];
                    EXPECT_LE(prev_end, a) << "slices overlap";
                    EXPECT_LT(a, b);
                    EXPECT_GE(a, start);
                    EXPECT_LE(b, end);
                    EXPECT_NE(sl[2].get<int>(), 0) << "idle is not sent";
                    EXPECT_GE(sl[3].get<uint64_t>(), 1u);
                    const json& cpu = meta["cpus"][l];
                    got[{cpu.value("instance", ""), cpu["cpu"].get<int>()}] += b - a;
                    prev_end = b;
                }
            }
            EXPECT_EQ(got, want) << name << " width " << width;
        }
    }
}

TEST(ViewServer, ZoomedQueriesMatchTheWholeOnes) {
    ViewServer s({"--port", "0", trace_path("basic.dat")});
    ASSERT_NE(s.port(), 0);
    const json meta = get_json(s, "/api/meta");
    const uint64_t start = meta["start"], end = meta["end"];
    // A narrow window (decoded again) holds exactly the exact slices of the whole trace, clipped.
    const uint64_t a = start + (end - start) / 2, b = a + (end - start) / 50;
    const json whole = get_json(
        s, "/api/cpus?from=" + std::to_string(start) + "&to=" + std::to_string(end) + "&width=20000");
    const json part =
        get_json(s, "/api/cpus?from=" + std::to_string(a) + "&to=" + std::to_string(b) + "&width=20000");
    ASSERT_TRUE(part["exact"].get<bool>());
    for (size_t l = 0; l < whole["lanes"].size(); ++l) {
        std::vector<std::vector<uint64_t>> want, got;
        for (const auto& sl : whole["lanes"][l]["slices"]) {
            if (sl[3].get<uint64_t>() != 1) continue;  // merged at that width: not comparable
            const uint64_t x = std::max(sl[0].get<uint64_t>(), a), y = std::min(sl[1].get<uint64_t>(), b);
            if (x < y) want.push_back({x, y, sl[2].get<uint64_t>()});
        }
        for (const auto& sl : part["lanes"][l]["slices"])
            got.push_back({sl[0], sl[1], sl[2].get<uint64_t>()});
        for (const auto& w : want)
            EXPECT_NE(std::find(got.begin(), got.end(), w), got.end()) << "lane " << l << " slice " << w[0];
    }
    // Task states tile the time they are known in, one letter each, at most width spans.
    const json t = get_json(s, "/api/tasks?width=50");
    ASSERT_FALSE(t["lanes"].empty());
    for (const auto& lane : t["lanes"]) {
        EXPECT_LE(lane["states"].size(), 50u);
        for (const auto& st : lane["states"]) {
            const std::string letter = st[2];
            EXPECT_NE(std::string("RWSD").find(letter), std::string::npos) << letter;
        }
    }
    const json exact =
        get_json(s, "/api/tasks?from=" + std::to_string(a) + "&to=" + std::to_string(b) +
                        "&width=20000&pids=" + std::to_string(t["lanes"][0]["pid"].get<int>()));
    EXPECT_EQ(exact["lanes"].size(), 1u);
}

// Every level of the task summaries (kLevelFactor apart, down to one bucket for the whole trace)
// answers with spans in time order that do not overlap, at most WIDTH of them, and tile the time
// from where the task's state is first known to the range's end.
TEST(ViewServer, TaskLevelsTileTheRange) {
    ViewServer s({"--port", "0", trace_path("full.dat")});
    ASSERT_NE(s.port(), 0);
    const json meta = get_json(s, "/api/meta");
    const uint64_t start = meta["start"], end = meta["end"];
    for (uint32_t width : {1u, 3u, 17u, 64u, 300u, 1500u, 4000u}) {
        for (uint64_t div : {1u, 5u, 40u}) {
            const uint64_t a = start + (end - start) / 2 - (end - start) / div / 2,
                           b = a + (end - start) / div;
            const json t = get_json(s, "/api/tasks?from=" + std::to_string(a) + "&to=" + std::to_string(b) +
                                           "&width=" + std::to_string(width));
            ASSERT_FALSE(t["lanes"].empty());
            size_t to_end = 0;
            for (const auto& lane : t["lanes"]) {
                const auto& st = lane["states"];
                EXPECT_LE(st.size(), width) << lane["pid"];
                for (size_t i = 0; i < st.size(); ++i) {
                    EXPECT_LT(st[i][0].get<uint64_t>(), st[i][1].get<uint64_t>());
                    EXPECT_GE(st[i][0].get<uint64_t>(), a);
                    EXPECT_LE(st[i][1].get<uint64_t>(), b);
                    if (i) {
                        EXPECT_EQ(st[i - 1][1].get<uint64_t>(), st[i][0].get<uint64_t>())
                            << "a gap or overlap";
                    }
                }
                to_end += !st.empty() && st.back()[1].get<uint64_t>() == b;
            }
            EXPECT_GT(to_end, 0u) << "width " << width << " 1/" << div;
        }
    }
}

TEST(ViewServer, BadRequestsAre400s) {
    ViewServer s({"--port", "0", trace_path("basic.dat")});
    ASSERT_NE(s.port(), 0);
    for (const std::string bad :
         {"/api/cpus?from=x", "/api/cpus?width=0", "/api/cpus?width=20001", "/api/cpus?from=10&to=5",
          "/api/cpus?from=-1", "/api/cpus?from=99999999999999999999999", "/api/events?limit=100001",
          "/api/events?filter=foo%3D%3D", "/api/events?filter=sched_switch%3A%20(", "/api/tasks?pids=1,x",
          "/api/search?q=", "/api/search?q=sched_switch%3A%20next_pid%3D%3D", "/api/cpus?from=%zz",
          "/api/cpus?from=1&from=2"}) {
        const json j = get_json(s, bad, 400);
        EXPECT_TRUE(j.contains("error")) << bad;
    }
    // Ranges past the trace are answered (empty), never an overflow or a failed report run.
    for (const std::string far :
         {"/api/events?from=18446744073709551614&to=18446744073709551615",
          "/api/cpus?from=0&to=18446744073709551615&width=20000",
          "/api/tasks?from=18446744073709551615&to=18446744073709551615", "/api/stats?from=0&to=1"}) {
        const json j = get_json(s, far);
        EXPECT_FALSE(j.contains("error")) << far;
    }
    EXPECT_TRUE(
        get_json(s, "/api/events?from=18446744073709551614&to=18446744073709551615")["lines"].empty());
    EXPECT_EQ(http_get(s.port(), "/api/nothing").status, 404);
    EXPECT_EQ(http_get(s.port(), "/nothing").status, 404);
    EXPECT_EQ(http_get(s.port(), "/assets/../../etc/passwd").status, 404);
    // A request past the size bound is refused; the server goes on.
    EXPECT_NE(http_get(s.port(), "/api/meta?pad=" + std::string(100000, 'x')).status, 200);
    EXPECT_EQ(http_get(s.port(), "/api/meta").status, 200);
    EXPECT_EQ(http_get(s.port(), "/").status, 200);
    EXPECT_EQ(s.stop(), 0);
}

TEST(ViewServer, SearchAndStats) {
    ViewServer s({"--port", "0", trace_path("basic.dat")});
    ASSERT_NE(s.port(), 0);
    const json ev = get_json(s, "/api/search?q=sched_switch");
    ASSERT_FALSE(ev["matches"].empty());
    EXPECT_EQ(ev["matches"][0]["kind"], "event");
    const json f = get_json(s, "/api/search?q=sched_switch%3A%20next_pid%3D%3D0");
    ASSERT_EQ(f["matches"].size(), 1u);
    EXPECT_EQ(f["matches"][0]["kind"], "filter");
    // As many as report -F prints.
    const auto r = split_lines(run_shell("'" + ringscope_bin() + "' report -F 'sched_switch: next_pid==0' '" +
                                         trace_path("basic.dat") + "'")
                                   .out);
    EXPECT_EQ(f["matches"][0]["count"].get<size_t>(), r.size() - 1);
    const json st = get_json(s, "/api/stats");
    ASSERT_FALSE(st["tasks"].empty());
    uint64_t prev = UINT64_MAX;
    for (const auto& t : st["tasks"]) {
        EXPECT_LE(t["run"].get<uint64_t>(), prev) << "worst first";
        prev = t["run"];
        EXPECT_LE(t["wakeup_avg"].get<uint64_t>(), t["wakeup_max"].get<uint64_t>());
    }
}

// instances.dat: the tasks its instance's sched events name are found, a -F search counts the
// instance's events as report -F prints them, and their run times are the tasks' stats.
TEST(ViewServer, InstancesAreSearchedAndMeasured) {
    const std::string file = trace_path("instances.dat");
    ViewServer s({"--port", "0", file});
    ASSERT_NE(s.port(), 0);
    const json meta = get_json(s, "/api/meta");
    std::vector<std::string> labels;
    for (const auto& c : meta["cpus"]) labels.push_back(c["label"]);
    EXPECT_NE(std::find(labels.begin(), labels.end(), "ringscope_a/CPU 1"), labels.end());
    EXPECT_NE(std::find(labels.begin(), labels.end(), "CPU 1"), labels.end());
    const json tasks = get_json(s, "/api/search?q=cc1plus");
    ASSERT_FALSE(tasks["matches"].empty()) << "cc1plus runs in ringscope_a's sched_switch events";
    EXPECT_EQ(tasks["matches"][0]["kind"], "task");
    const std::string filter = "sched_switch: next_pid>0";
    const json f = get_json(s, "/api/search?q=sched_switch%3A%20next_pid%3E0");
    ASSERT_EQ(f["matches"].size(), 1u);
    const auto r =
        split_lines(run_shell("'" + ringscope_bin() + "' report -F '" + filter + "' '" + file + "'").out);
    ASSERT_GT(r.size(), 1u);
    EXPECT_EQ(f["matches"][0]["count"].get<size_t>(), r.size() - 1);
    const json st = get_json(s, "/api/stats");
    ASSERT_FALSE(st["tasks"].empty());
    EXPECT_GT(st["tasks"][0]["run"].get<uint64_t>(), 0u);
    EXPECT_EQ(s.stop(), 0);
}

// Server memory flat in the trace size: what the summaries hold (/api/meta's "index") for full.dat
// repeated 8 times (bench/report's trace_repeat) is within a quarter of what they hold for full.dat:
// fixed buckets per CPU lane, at most one entry per task and bucket.
TEST(ViewServer, SummariesStayFlatInTheTraceSize) {
    const fs::path repeat = fs::path(RINGSCOPE_BINARY_DIR) / "bench" / "trace_repeat";
    if (!fs::exists(repeat)) GTEST_SKIP() << repeat << " is not built (RINGSCOPE_BENCH=OFF)";
    const fs::path x8 =
        fs::temp_directory_path() / ("ringscope-view-x8-" + std::to_string(::getpid()) + ".dat");
    ASSERT_EQ(run_shell("'" + repeat.string() + "' '" + trace_path("full.dat") + "' '" + x8.string() + "' 8")
                  .status,
              0);
    auto summaries = [](const std::string& file) {
        ViewServer s({"--port", "0", file});
        EXPECT_NE(s.port(), 0) << file;
        const json meta = get_json(s, "/api/meta");
        const json& z = meta["index"];
        EXPECT_GT(z["task_entries"].get<uint64_t>(), 0u) << file;
        return std::pair{meta["total"].get<uint64_t>(), z["cpu_bytes"].get<uint64_t>() +
                                                            z["task_bytes"].get<uint64_t>() +
                                                            z["dropped_bytes"].get<uint64_t>()};
    };
    const auto [events1, bytes1] = summaries(trace_path("full.dat"));
    const auto [events8, bytes8] = summaries(x8.string());
    fs::remove(x8);
    EXPECT_EQ(events8, 8 * events1);
    EXPECT_LE(bytes8, bytes1 + bytes1 / 4) << "x1: " << bytes1 << " bytes, x8: " << bytes8;
}

}  // namespace
}  // namespace ringscope::test
