// kvm on the viewer's timeline (the kvm plugin's timeline annotator): on host + guest files the
// guests' vCPU -> host task map of /api/meta and the exits per reason of /api/marks are what
// `ringscope kvm exits` finds in the same files; marks are thinned per pixel but keep their counts;
// the export embeds them.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "../support/file_text.hpp"
#include "view_client.hpp"

namespace fs = std::filesystem;

namespace ringscope::test {
namespace {

using json = nlohmann::json;

std::string data_path(const std::string& rel) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/" + rel;
}

const std::vector<std::string> kHostGuest = {data_path("kvm-agent/host.dat"),
                                             data_path("kvm-agent/host-vm2.dat")};

json kvm_exits(const std::vector<std::string>& files) {
    std::string cmd = "'" + ringscope_bin() + "' kvm exits --format json";
    for (const auto& f : files) cmd += " '" + f + "'";
    const auto r = run_shell(cmd + " 2>/dev/null");
    EXPECT_EQ(r.status, 0) << cmd;
    return json::parse(r.out);
}

// Exits per reason name (kvm exits counts per isa and code: two codes may share a name).
std::map<std::string, uint64_t> reasons_of(const json& exits) {
    std::map<std::string, uint64_t> out;
    for (const auto& row : exits["kvm.exits.reasons"]) out[row["reason"]] += row["count"].get<uint64_t>();
    return out;
}

std::map<std::string, uint64_t> counts_of(const json& list) {
    std::map<std::string, uint64_t> out;
    for (const auto& c : list) {
        EXPECT_EQ(c["kind"], "kvm exit");
        out[c["label"]] += c["count"].get<uint64_t>();
    }
    return out;
}

// How many marks an answer's lanes or tasks stand for (each shown one counts those of its pixel).
uint64_t thinned_of(const json& list) {
    uint64_t n = 0;
    for (const auto& item : list)
        for (const auto& m : item["marks"]) n += m[3].get<uint64_t>();
    return n;
}

uint64_t sum(const std::map<std::string, uint64_t>& counts) {
    uint64_t n = 0;
    for (const auto& [k, v] : counts) n += v;
    return n;
}

TEST(ViewKvm, VcpuThreadsAndExitsAreKvmExits) {
    ViewServer s({"--port", "0", kHostGuest[0], kHostGuest[1]});
    ASSERT_NE(s.port(), 0) << s.first_line();
    const json meta = json::parse(http_get(s.port(), "/api/meta").body);
    const json exits = kvm_exits(kHostGuest);

    ASSERT_EQ(meta["guests"].size(), 1u);
    const json& map = meta["guests"][0]["host_pid_of_vcpu"];
    ASSERT_EQ(map.size(), exits["kvm.exits.vcpus"].size()) << map.dump();
    for (const auto& row : exits["kvm.exits.vcpus"])
        EXPECT_EQ(map.value(std::to_string(row["vcpu"].get<int>()), -1), row["pid"].get<int>()) << map.dump();

    const auto want = reasons_of(exits);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(counts_of(meta["marks"]), want);
    // The whole trace at 1000 pixels: one mark per pixel per lane, counts kept.
    const json all = json::parse(http_get(s.port(), "/api/marks?width=1000").body);
    EXPECT_TRUE(all["complete"].get<bool>());
    EXPECT_EQ(counts_of(all["counts"]), want);
    EXPECT_EQ(thinned_of(all["lanes"]), sum(want));
    EXPECT_EQ(thinned_of(all["tasks"]), sum(want));
    size_t shown = 0;
    for (const auto& lane : all["lanes"]) {
        EXPECT_EQ(lane["lane"].get<std::string>().rfind("0:", 0), 0u) << "exits happen on the host's CPUs";
        EXPECT_LE(lane["marks"].size(), 1000u);
        shown += lane["marks"].size();
    }
    EXPECT_LT(shown, sum(want)) << "thinned to the pixels";
    std::set<int> vcpu_pids;
    for (const auto& [vcpu, pid] : map.items()) vcpu_pids.insert(pid.get<int>());
    for (const auto& t : all["tasks"]) EXPECT_TRUE(vcpu_pids.count(t["pid"].get<int>())) << t["pid"];

    // Half the trace: the counts of its range only, and every mark inside it.
    const uint64_t from = meta["start"], to = meta["end"], mid = from + (to - from) / 2;
    const json half =
        json::parse(http_get(s.port(), "/api/marks?from=" + std::to_string(mid) + "&width=20000").body);
    uint64_t in_half = 0, in_all = 0;
    for (const auto& c : half["counts"]) in_half += c["count"].get<uint64_t>();
    for (const auto& c : all["counts"]) in_all += c["count"].get<uint64_t>();
    EXPECT_GT(in_half, 0u);
    EXPECT_LT(in_half, in_all);
    for (const auto& lane : half["lanes"])
        for (const auto& m : lane["marks"]) EXPECT_GE(m[0].get<uint64_t>(), mid);

    EXPECT_EQ(http_get(s.port(), "/api/marks?from=5&to=4").status, 400);
    EXPECT_EQ(http_get(s.port(), "/api/marks?width=0").status, 400);
}

// A host file alone (no guest beside it): exits still counted per reason, no vCPU lanes to place.
// The guest's own tasks (each file's pids apart: id = FILE * 2^22 + pid): the tasks of /api/meta
// under file 1 are the pids the guest's sched_switch and wakeups name in `report` of the guest
// alone, each switched-in one (and only those) has run time in /api/stats, and /api/tasks gives
// their states.
TEST(ViewKvm, GuestTasksHaveTheirLanes) {
    const auto report = run_shell("'" + ringscope_bin() + "' report '" + kHostGuest[1] + "' 2>/dev/null");
    ASSERT_EQ(report.status, 0);
    std::set<int> guest_pids, switched_in;
    const std::regex sw(R"(sched_switch:\s+.+?:(\d+) \[\d+\] \S+ ==> .+?:(\d+) \[)");
    const std::regex wake(R"(sched_wakeup(_new)?:\s+.+?:(\d+) \[)");
    for (const auto& line : split_lines(report.out)) {
        std::smatch m;
        if (std::regex_search(line, m, sw)) {
            for (int g : {1, 2})
                if (int pid = std::stoi(m[g]); pid != 0) guest_pids.insert(pid);
            if (int pid = std::stoi(m[2]); pid != 0) switched_in.insert(pid);
        } else if (std::regex_search(line, m, wake)) {
            if (int pid = std::stoi(m[2]); pid != 0) guest_pids.insert(pid);
        }
    }
    ASSERT_GT(guest_pids.size(), 10u);

    ViewServer s({"--port", "0", kHostGuest[0], kHostGuest[1]});
    ASSERT_NE(s.port(), 0) << s.first_line();
    const json meta = json::parse(http_get(s.port(), "/api/meta").body);
    constexpr int kBase = 1 << 22;
    std::set<int> meta_pids;
    std::string ids;
    size_t host_threads = 0;
    for (const auto& proc : meta["processes"]) {
        const int file = proc["file"];
        EXPECT_EQ(proc["id"].get<int>(), file * kBase + proc["tgid"].get<int>()) << proc.dump();
        for (const auto& th : proc["threads"]) {
            EXPECT_EQ(th["id"].get<int>(), file * kBase + th["pid"].get<int>()) << th.dump();
            if (file == 0) {
                ++host_threads;
                continue;
            }
            EXPECT_EQ(file, 1);
            EXPECT_FALSE(th["comm"].get<std::string>().empty()) << th.dump();
            meta_pids.insert(th["pid"].get<int>());
            ids += (ids.empty() ? "" : ",") + std::to_string(th["id"].get<int>());
        }
    }
    EXPECT_GT(host_threads, 0u);
    EXPECT_EQ(meta_pids, guest_pids);

    const json tasks = json::parse(http_get(s.port(), "/api/tasks?width=20000&pids=" + ids).body);
    ASSERT_EQ(tasks["lanes"].size(), guest_pids.size()) << tasks.dump().substr(0, 300);
    for (const auto& lane : tasks["lanes"]) {
        EXPECT_EQ(lane["file"], 1);
        EXPECT_TRUE(guest_pids.count(lane["pid"].get<int>())) << lane["pid"];
        EXPECT_FALSE(lane["states"].empty()) << lane["pid"];  // (a pixel shows its dominant state)
    }
    const json stats = json::parse(http_get(s.port(), "/api/stats").body);
    std::set<int> ran;
    for (const auto& t : stats["tasks"])
        if (t["file"] == 1 && t["run"].get<uint64_t>() > 0) ran.insert(t["pid"].get<int>());
    EXPECT_EQ(ran, switched_in);
}

TEST(ViewKvm, HostAloneHasItsExits) {
    for (const std::string f : {"kvm/kvm-extra.dat", "kvm-modules/kvm-modules.dat"}) {
        ViewServer s({"--port", "0", data_path(f)});
        ASSERT_NE(s.port(), 0) << s.first_line();
        const json meta = json::parse(http_get(s.port(), "/api/meta").body);
        const auto want = reasons_of(kvm_exits({data_path(f)}));
        EXPECT_EQ(counts_of(meta["marks"]), want) << f;
        EXPECT_EQ(meta["guests"].size(), 0u);
    }
}

// The blob of `ringscope [GLOBAL] view --export` of the host + guest pair.
json export_blob(const std::string& global) {
    const fs::path out =
        fs::temp_directory_path() / ("ringscope-view-kvm-" + std::to_string(::getpid()) + ".html");
    const auto r = run_shell("'" + ringscope_bin() + "' " + global + " view --export '" + out.string() +
                             "' '" + kHostGuest[0] + "' '" + kHostGuest[1] + "' 2>&1");
    EXPECT_EQ(r.status, 0) << r.out;
    const std::string page = read_file(out.string());
    fs::remove(out);
    const size_t a = page.find("<script id=\"ringscope-data\" type=\"application/json\">");
    if (a == std::string::npos) return json();
    const size_t body = page.find('>', a) + 1;
    return json::parse(page.substr(body, page.find("</script>", body) - body));
}

// Without plugins the framework knows nothing of kvm: no marks, no vCPU threads.
TEST(ViewKvm, WithoutPluginsNoMarks) {
    const json blob = export_blob("-N");
    ASSERT_TRUE(blob.is_object());
    EXPECT_TRUE(blob["meta"]["marks"].empty());
    EXPECT_TRUE(blob["marks"]["lanes"].empty());
    EXPECT_TRUE(blob["meta"]["guests"][0]["host_pid_of_vcpu"].empty());
}

TEST(ViewKvm, ExportEmbedsMarks) {
    const json blob = export_blob("");
    ASSERT_TRUE(blob.is_object());
    const auto want = reasons_of(kvm_exits(kHostGuest));
    EXPECT_EQ(counts_of(blob["marks"]["counts"]), want);
    EXPECT_EQ(thinned_of(blob["marks"]["tasks"]), sum(want));
    EXPECT_FALSE(blob["meta"]["guests"][0]["host_pid_of_vcpu"].empty());
}

}  // namespace
}  // namespace ringscope::test
