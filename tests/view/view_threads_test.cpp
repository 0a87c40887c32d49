// `ringscope view` groups the host's tasks by process. threads.dat (tests/data/view/make-threads.sh)
// was recorded while threads.c ran: processes with several pthreads, a thread's thread, a process
// forked by a thread. Every task of the workload wrote "tgid-check tid=T tgid=G" to trace_marker, so
// the trace itself says which process each thread is in; /api/tasks, /api/meta and --export must
// say the same (they work it out from task_newtask's clone_flags, never from these lines).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "../support/file_text.hpp"
#include "export_blob.hpp"
#include "view_client.hpp"

namespace fs = std::filesystem;

namespace ringscope::test {
namespace {

using json = nlohmann::json;

std::string threads_dat() {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/view/threads.dat";
}

// tid -> tgid as the workload's tasks wrote them, from report's print lines ("comm-TID [..] ...
// tgid-check tid=TID tgid=G"); the line's own pid must be the tid it names.
std::map<int, int> written_tgids() {
    static const std::regex re(R"(-(\d+)\s+\[\d+\].*tgid-check tid=(\d+) tgid=(\d+))");
    std::map<int, int> out;
    std::smatch m;
    for (const auto& line : report_lines(threads_dat()).lines) {
        if (!std::regex_search(line, m, re)) continue;
        EXPECT_EQ(m[1], m[2]) << line;
        out[std::stoi(m[2])] = std::stoi(m[3]);
    }
    return out;
}

json get_json(const ViewServer& s, const std::string& target) {
    const HttpAnswer a = http_get(s.port(), target);
    EXPECT_EQ(a.status, 200) << target << ": " << a.body;
    return json::parse(a.body, nullptr, false);
}

// tgid -> its threads' pids, from /api/meta's processes (only the tasks in WANTED).
std::map<int, std::set<int>> groups_of(const json& processes, const std::map<int, int>& wanted) {
    std::map<int, std::set<int>> out;
    for (const auto& p : processes)
        for (const auto& t : p["threads"])
            if (wanted.count(t["pid"].get<int>())) out[p["tgid"].get<int>()].insert(t["pid"].get<int>());
    return out;
}

// The fixture reads as trace-cmd 3.1.6 reads it (its stale sched_switch state letters asked for).
TEST(ViewThreads, ReportIsTraceCmds) {
    const std::string dir = std::string(RINGSCOPE_TEST_DATA_DIR) + "/view/";
    const auto r = run_shell("RINGSCOPE_COMPAT=3.1 '" + ringscope_bin() +
                             "' report -O sched:legacy_states '" + threads_dat() + "' 2>&1");
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(r.out == read_file(dir + "threads.report"))
        << "differs from trace-cmd 3.1.6's threads.report";
}

TEST(ViewThreads, TasksCarryTheTgidTheThreadsWrote) {
    const std::map<int, int> written = written_tgids();
    // threads.c: the main task; processes 1-3 with three threads each, process 2's first thread
    // with a thread of its own; process 4 (forked by process 3's first thread) with two.
    ASSERT_EQ(written.size(), 17u) << "tgid-check lines in " << threads_dat();
    std::map<int, std::set<int>> want;
    for (const auto& [tid, tgid] : written) want[tgid].insert(tid);
    ASSERT_EQ(want.size(), 5u);
    size_t threaded = 0;
    for (const auto& [tgid, tids] : want) {
        EXPECT_TRUE(tids.count(tgid)) << "the leader " << tgid << " wrote too";
        threaded += tids.size() > 1;
    }
    EXPECT_EQ(threaded, 4u);

    ViewServer s({"--port", "0", threads_dat()});
    ASSERT_NE(s.port(), 0) << s.first_line();
    const json tasks = get_json(s, "/api/tasks?width=500");
    std::set<int> seen;
    for (const auto& lane : tasks["lanes"]) {
        const int pid = lane["pid"];
        auto it = written.find(pid);
        if (it == written.end()) continue;
        seen.insert(pid);
        EXPECT_EQ(lane["tgid"].get<int>(), it->second) << "pid " << pid;
    }
    EXPECT_EQ(seen.size(), written.size()) << "every task of the workload has a lane";

    const json meta = get_json(s, "/api/meta");
    EXPECT_EQ(groups_of(meta["processes"], written), want);
    for (const auto& p : meta["processes"]) {
        std::set<int> pids;
        for (const auto& t : p["threads"]) EXPECT_TRUE(pids.insert(t["pid"].get<int>()).second);
        EXPECT_FALSE(pids.empty());
    }
    EXPECT_EQ(s.stop(), 0);
}

// A process header's lane (/api/processes): its thread count, and the union of its threads'
// running: every switch-in of one of its threads that `report` prints is inside a running span
// (within a pixel), at most as many at once as it has threads, and a range's union is the part
// of the whole one the range holds.
TEST(ViewThreads, ProcessHeadersSummariseTheirThreads) {
    const auto written = written_tgids();
    std::map<int, std::set<int>> procs;
    for (const auto& [tid, tgid] : written) procs[tgid].insert(tid);
    std::erase_if(procs, [](const auto& p) { return p.second.size() < 2; });
    ASSERT_GE(procs.size(), 3u);
    ViewServer s({"--port", "0", threads_dat()});
    ASSERT_NE(s.port(), 0) << s.first_line();
    const json meta = get_json(s, "/api/meta");
    const uint64_t start = meta["start"], end = meta["end"];
    constexpr uint32_t kWidth = 3000;
    const uint64_t px = (end - start) / kWidth + 1;
    std::string ids;
    for (const auto& [tgid, tids] : procs) ids += (ids.empty() ? "" : ",") + std::to_string(tgid);
    const json answer = get_json(s, "/api/processes?width=" + std::to_string(kWidth) + "&ids=" + ids);
    ASSERT_EQ(answer["lanes"].size(), procs.size()) << answer.dump().substr(0, 300);
    const ReportLines report = report_lines(threads_dat());
    static const std::regex sw(R"(sched_switch:.* ==> .*:(\d+) \[)");
    for (const auto& lane : answer["lanes"]) {
        const int tgid = lane["tgid"];
        const auto& tids = procs.at(tgid);
        for (const auto& p : meta["processes"])
            if (p["tgid"] == tgid) {
                EXPECT_EQ(lane["threads"], p["threads"].size()) << tgid;
            }
        const json& running = lane["running"];
        size_t switch_ins = 0;
        for (size_t i = 0; i < report.lines.size(); ++i) {
            std::smatch m;
            if (!std::regex_search(report.lines[i], m, sw) || !tids.count(std::stoi(m[1]))) continue;
            ++switch_ins;
            const uint64_t t = report.ts[i];
            const bool inside = std::any_of(running.begin(), running.end(), [&](const json& r) {
                return r[0].get<uint64_t>() <= t + px && t <= r[1].get<uint64_t>() + px;
            });
            EXPECT_TRUE(inside) << "process " << tgid << ": " << report.lines[i];
        }
        EXPECT_GT(switch_ins, 0u) << tgid;
        for (const auto& r : running) {
            EXPECT_LT(r[0].get<uint64_t>(), r[1].get<uint64_t>());
            EXPECT_GE(r[2].get<int>(), 1);
            EXPECT_LE(r[2].get<size_t>(), tids.size());
        }
    }
    // Without ids: every process of more than one thread, the workload's among them.
    std::set<int> all;
    const json every = get_json(s, "/api/processes");
    for (const auto& lane : every["lanes"]) {
        EXPECT_GE(lane["threads"].get<int>(), 2);
        all.insert(lane["tgid"].get<int>());
    }
    for (const auto& [tgid, tids] : procs) EXPECT_TRUE(all.count(tgid)) << tgid;
    EXPECT_EQ(http_get(s.port(), "/api/processes?ids=a").status, 400);
}

TEST(ViewThreads, ExportGroupsTheSame) {
    const std::map<int, int> written = written_tgids();
    ASSERT_FALSE(written.empty());
    std::map<int, std::set<int>> want;
    for (const auto& [tid, tgid] : written) want[tgid].insert(tid);
    const fs::path out =
        fs::temp_directory_path() / ("ringscope-view-threads-" + std::to_string(getpid()) + ".html");
    const auto r = run_shell("'" + ringscope_bin() + "' view --export '" + out.string() + "' '" +
                             threads_dat() + "' 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    const std::string html = read_file(out);
    fs::remove(out);
    const json blob = export_blob(html);
    ASSERT_TRUE(blob.is_object());
    EXPECT_EQ(groups_of(blob["meta"]["processes"], written), want);
    for (const auto& lane : blob["tasks"]["lanes"]) {
        if (auto it = written.find(lane["pid"].get<int>()); it != written.end()) {
            EXPECT_EQ(lane["tgid"].get<int>(), it->second);
        }
    }
}

}  // namespace
}  // namespace ringscope::test
