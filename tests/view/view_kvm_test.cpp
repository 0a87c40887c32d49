// kvm on the viewer's timeline (the kvm plugin's timeline annotator): on host + guest files the
// guests' vCPU -> host task map of /api/meta and the exits per reason of /api/marks are what
// `ringscope kvm exits` finds in the same files; marks are thinned per pixel but keep their counts;
// the export embeds them.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
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
