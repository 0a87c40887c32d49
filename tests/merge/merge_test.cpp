// `--partial` and `ringscope merge` on the committed traces: each analysis run over all the files at
// once prints exactly what merging the partials of one run per file prints (text and JSON), in any
// merge order; the exact fields of the merge also agree with the per-file results added up here.
// Broken, truncated and mismatched partials give one error line naming the file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/robustness/child_process.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using Cmd = ringscope::testing::ChildResult;
using ringscope::test::read_file;

std::string tmpdir(const std::string& name) {
    std::string d = std::string(RINGSCOPE_BINARY_DIR) + "/tests/merge-tmp/" + name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// `ringscope WORDS... FILES...`: `words` are the command and its options (split at spaces), `files`
// the paths after them. A crash, a hang or a sanitizer report fails the test.
Cmd ringscope(const std::string& words, const std::vector<std::string>& files = {}) {
    static int n = 0;
    const std::string base = std::string(RINGSCOPE_BINARY_DIR) + "/tests/merge-tmp/run." +
                             std::to_string(::getpid()) + "." + std::to_string(n++);
    fs::create_directories(fs::path(base).parent_path());
    std::vector<std::string> argv{std::string(RINGSCOPE_BINARY_DIR) + "/ringscope"};
    std::istringstream split(words);
    for (std::string w; split >> w;) argv.push_back(w);
    argv.insert(argv.end(), files.begin(), files.end());
    auto r = ringscope::testing::run_child(argv, ringscope::testing::sanitizer_env(),
                                           std::chrono::seconds(300), base + ".out", base + ".err");
    EXPECT_EQ(r.fault(), "") << words << "\n" << r.err;
    fs::remove(base + ".out");
    fs::remove(base + ".err");
    return r;
}

std::string data(const std::string& rel) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/" + rel;
}

const std::vector<std::string> kSchedTraces = {data("traces/basic.dat"), data("traces/full.dat"),
                                               data("traces/dropped.dat"), data("traces/formats-zstd.dat")};
const std::vector<std::string> kKvmTraces = {data("kvm/kvm-extra.dat"), data("kvm-agent/host.dat")};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// One partial per file; returns their paths.
std::vector<std::string> partials(const std::string& command, const std::vector<std::string>& files,
                                  const std::string& dir) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < files.size(); ++i) {
        std::string part = dir + "/part" + std::to_string(i) + ".json";
        Cmd r = ringscope(command, {"--partial", part, files[i]});
        EXPECT_EQ(r.exit_code, 0) << command << " " << files[i] << ": " << r.err;
        EXPECT_EQ(r.out, "") << "a partial run prints nothing";
        parts.push_back(part);
    }
    return parts;
}

// The command over all files at once and the merge of per-file partials print the same, in every
// format and whatever the order of the partials; returns the JSON of one run over all the files.
json expect_merge_equals_one_run(const std::string& command, const std::vector<std::string>& files,
                                 const std::string& dir) {
    std::vector<std::string> parts = partials(command, files, dir);
    for (const char* format : {"json", "text", "csv"}) {
        Cmd all = ringscope(command + " --format " + format, files);
        EXPECT_EQ(all.exit_code, 0) << all.err;
        EXPECT_FALSE(all.out.empty());
        Cmd merged = ringscope(std::string("merge --format ") + format, parts);
        EXPECT_EQ(merged.exit_code, 0) << merged.err;
        EXPECT_EQ(merged.out, all.out) << command << " --format " << format;
        std::vector<std::string> reversed(parts.rbegin(), parts.rend());
        Cmd backwards = ringscope(std::string("merge --format ") + format, reversed);
        EXPECT_EQ(backwards.out, all.out) << command << " --format " << format << ", partials in reverse";
    }
    // A merge of merges: the first half merged into one partial, then with the rest.
    std::string half = dir + "/half.json";
    std::vector<std::string> first(parts.begin(), parts.begin() + static_cast<long>(parts.size() / 2));
    Cmd m = ringscope("merge", concat({"--partial", half}, first));
    EXPECT_EQ(m.exit_code, 0) << m.err;
    json half_doc = json::parse(read_file(half));
    EXPECT_EQ(half_doc["inputs"].size(), first.size());
    std::vector<std::string> rest{half};
    rest.insert(rest.end(), parts.begin() + static_cast<long>(parts.size() / 2), parts.end());
    Cmd again = ringscope("merge --format json", rest);
    Cmd all = ringscope(command + " --format json", files);
    EXPECT_EQ(again.out, all.out) << "merge of a merged partial";
    return json::parse(all.out);
}

std::vector<json> one_run_per_file(const std::string& command, const std::vector<std::string>& files) {
    std::vector<json> out;
    for (const auto& f : files) {
        Cmd r = ringscope(command + " --format json", {f});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        out.push_back(json::parse(r.out));
    }
    return out;
}

TEST(Merge, SchedLatency) {
    json all = expect_merge_equals_one_run("sched latency --top 7", kSchedTraces, tmpdir("latency"));
    // Independently of the merge code: the per-file results added up.
    uint64_t count = 0, min = UINT64_MAX, max = 0;
    long double sum = 0;
    std::vector<uint64_t> worst;
    std::map<int, uint64_t> task_counts;
    for (const json& one : one_run_per_file("sched latency --top 7", kSchedTraces)) {
        uint64_t n = one["overall"]["count"];
        ASSERT_GT(n, 0u);
        count += n;
        sum += one["overall"]["mean_ns"].get<long double>() * n;
        min = std::min<uint64_t>(min, one["overall"]["min_ns"]);
        max = std::max<uint64_t>(max, one["overall"]["max_ns"]);
        for (const auto& w : one["worst"]) worst.push_back(w["latency_ns"]);
        for (const auto& t : one["tasks"]) task_counts[t["pid"]] += t["count"].get<uint64_t>();
    }
    EXPECT_EQ(all["overall"]["count"], count);
    EXPECT_EQ(all["overall"]["min_ns"], min);
    EXPECT_EQ(all["overall"]["max_ns"], max);
    EXPECT_NEAR(all["overall"]["mean_ns"].get<double>(), static_cast<double>(sum / count), 1e-6 * max);
    std::sort(worst.rbegin(), worst.rend());
    worst.resize(7);
    std::vector<uint64_t> got;
    for (const auto& w : all["worst"]) got.push_back(w["latency_ns"]);
    EXPECT_EQ(got, worst);
    std::map<int, uint64_t> got_tasks;
    for (const auto& t : all["tasks"]) got_tasks[t["pid"]] = t["count"];
    EXPECT_EQ(got_tasks, task_counts);
    // Percentiles stay within the sketch's bound of the quantile ranks it reports.
    const json& o = all["overall"];
    for (const char* p : {"p50_ns", "p90_ns", "p99_ns", "p999_ns"}) {
        EXPECT_GE(o[p].get<uint64_t>(), min) << p;
        EXPECT_LE(o[p].get<uint64_t>(), max) << p;
    }
}

TEST(Merge, SchedRuntime) {
    json all = expect_merge_equals_one_run("sched runtime", kSchedTraces, tmpdir("runtime"));
    std::map<int, uint64_t> runtime, switches, cpu_busy, cpu_switches;
    for (const json& one : one_run_per_file("sched runtime", kSchedTraces)) {
        for (const auto& t : one["sched.runtime.tasks"]) {
            runtime[t["pid"]] += t["runtime_ns"].get<uint64_t>();
            switches[t["pid"]] += t["switches"].get<uint64_t>();
        }
        for (const auto& c : one["sched.runtime.cpus"]) {
            cpu_busy[c["cpu"]] += c["busy_ns"].get<uint64_t>();
            cpu_switches[c["cpu"]] += c["switches"].get<uint64_t>();
        }
    }
    std::map<int, uint64_t> got_runtime, got_switches, got_busy, got_cpu_switches;
    for (const auto& t : all["sched.runtime.tasks"]) {
        got_runtime[t["pid"]] = t["runtime_ns"];
        got_switches[t["pid"]] = t["switches"];
    }
    for (const auto& c : all["sched.runtime.cpus"]) {
        got_busy[c["cpu"]] = c["busy_ns"];
        got_cpu_switches[c["cpu"]] = c["switches"];
    }
    EXPECT_EQ(got_runtime, runtime);
    EXPECT_EQ(got_switches, switches);
    EXPECT_EQ(got_busy, cpu_busy);
    EXPECT_EQ(got_cpu_switches, cpu_switches);
}

TEST(Merge, SchedTimeline) {
    json all = expect_merge_equals_one_run("sched timeline --window 2ms", kSchedTraces, tmpdir("timeline"));
    // Busy time per CPU (fraction x covered length) adds up over the files' windows.
    auto busy_ns = [](const json& rows) {
        std::map<std::string, double> busy;
        for (const auto& row : rows) {
            EXPECT_EQ(row["window_start_ns"].get<uint64_t>() % 2000000, 0u)
                << "windows align on absolute time";
            for (const auto& [k, v] : row.items())
                if (k.rfind("cpu", 0) == 0) busy[k] += v.get<double>() * row["window_ns"].get<double>();
        }
        return busy;
    };
    std::map<std::string, double> want;
    for (const json& one : one_run_per_file("sched timeline --window 2ms", kSchedTraces))
        for (const auto& [cpu, ns] : busy_ns(one["sched.timeline"])) want[cpu] += ns;
    std::map<std::string, double> got = busy_ns(all["sched.timeline"]);
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [cpu, ns] : want) EXPECT_NEAR(got[cpu], ns, 1e-6 * ns + 1) << cpu;
}

TEST(Merge, KvmExits) {
    json all = expect_merge_equals_one_run("kvm exits --top 3", kKvmTraces, tmpdir("kvm"));
    std::map<std::string, uint64_t> want;
    for (const json& one : one_run_per_file("kvm exits --top 3", kKvmTraces))
        for (const auto& r : one["kvm.exits.reasons"]) want[r["reason"]] += r["count"].get<uint64_t>();
    std::map<std::string, uint64_t> got;
    uint64_t total = 0;
    for (const auto& r : all["kvm.exits.reasons"]) {
        got[r["reason"]] = r["count"];
        total += r["count"].get<uint64_t>();
    }
    EXPECT_EQ(got, want);
    EXPECT_EQ(total, 340u + 22834u);  // tests/data/kvm/README.md, tests/data/kvm-agent/counts.txt
}

// libipt's packet list of a stream (P lines of tests/data/ipt/NAME.libipt.txt): count and bytes per
// kind, named as ptdump names them (libipt's enum pt_packet_type order).
std::map<std::string, std::pair<uint64_t, uint64_t>> libipt_packets(const std::string& name) {
    static const std::vector<std::string> kNames = {
        "invalid", "unknown", "pad",  "psb", "psbend", "fup",   "tip",  "tip.pge", "tip.pgd",
        "tnt.8",   "tnt.64",  "mode", "pip", "vmcs",   "cbr",   "tsc",  "tma",     "mtc",
        "cyc",     "stop",    "ovf",  "mnt", "exstop", "mwait", "pwre", "pwrx",    "ptw"};
    std::map<std::string, std::pair<uint64_t, uint64_t>> kinds;
    std::istringstream lines(read_file(data("ipt/" + name + ".libipt.txt")));
    std::string line;
    while (std::getline(lines, line) && line != "== forward") {
        unsigned type = 0, size = 0;
        char off[32];
        if (std::sscanf(line.c_str(), "P %31s t%u s%u", off, &type, &size) != 3) continue;
        EXPECT_LT(type, kNames.size()) << line;
        if (type >= kNames.size()) continue;
        ++kinds[kNames[type]].first;
        kinds[kNames[type]].second += size;
    }
    return kinds;
}

TEST(Merge, IptSummary) {
    const std::vector<std::string> streams = {data("ipt/clean.pt"), data("ipt/close_psbs.pt"),
                                              data("ipt/messy.pt")};
    json all = expect_merge_equals_one_run("ipt summary", streams, tmpdir("ipt"));
    std::map<std::string, std::pair<uint64_t, uint64_t>> want;
    for (const char* name : {"clean", "close_psbs", "messy"})
        for (const auto& [kind, n] : libipt_packets(name)) {
            want[kind].first += n.first;
            want[kind].second += n.second;
        }
    ASSERT_FALSE(want.empty());
    std::map<std::string, std::pair<uint64_t, uint64_t>> got;
    uint64_t packets = 0;
    for (const auto& row : all["ipt.summary.packets"]) {
        got[row["packet"]] = {row["count"], row["bytes"]};
        packets += row["count"].get<uint64_t>();
    }
    EXPECT_EQ(got, want);
    const json& totals = all["ipt.summary.totals"][0];
    EXPECT_EQ(totals["streams"], 3);
    EXPECT_EQ(totals["packets"], packets);
    EXPECT_EQ(totals["psbs"], want["psb"].first);
    uint64_t bytes = 0;
    for (const auto& s : streams) bytes += fs::file_size(s);
    EXPECT_EQ(totals["bytes"], bytes);
    uint64_t in_packets = 0;
    for (const auto& [kind, n] : want) in_packets += n.second;
    EXPECT_EQ(totals["unsynced_bytes"].get<uint64_t>(), bytes - in_packets);
}

TEST(Merge, PartialNamesItsAnalysisAndInputs) {
    std::string dir = tmpdir("doc");
    std::vector<std::string> parts = partials("sched timeline --window 5ms", {kSchedTraces[0]}, dir);
    json doc = json::parse(read_file(parts[0]));
    EXPECT_EQ(doc["ringscope_partial"], 1);
    EXPECT_EQ(doc["analysis"], "sched.timeline");
    EXPECT_EQ(doc["command"], json::array({"sched", "timeline"}));
    EXPECT_EQ(doc["params"], json({{"window", "5000000"}}));
    EXPECT_EQ(doc["inputs"], json::array({kSchedTraces[0]}));
    EXPECT_TRUE(doc["state"].is_object());
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().extension(), ".json") << "no temporary left behind: " << e.path();
}

// One line on stderr naming the file, and the exit code.
void expect_error(const Cmd& r, int code, const std::string& file, const std::string& what) {
    EXPECT_EQ(r.exit_code, code) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

TEST(Merge, BrokenPartialsGiveOneLineNamingTheFile) {
    std::string dir = tmpdir("broken");
    std::vector<std::string> lat = partials("sched latency", {kSchedTraces[0], kSchedTraces[1]}, dir);
    std::string whole = read_file(lat[1]);

    std::string cut = dir + "/cut.json";
    std::ofstream(cut) << whole.substr(0, whole.size() / 2);
    expect_error(ringscope("merge", {lat[0], cut}), 2, cut + ": offset ", "not a ringscope partial");
    expect_error(ringscope("sched latency --merge", {lat[0], cut}), 2, cut + ": offset ",
                 "not a ringscope partial");

    std::string empty = dir + "/empty.json";
    std::ofstream(empty) << "";
    expect_error(ringscope("merge", {empty}), 2, empty, "not a ringscope partial");

    std::string other = dir + "/other.json";
    std::ofstream(other) << R"({"traceEvents": []})";
    expect_error(ringscope("merge", {lat[0], other}), 2, other, "no \"ringscope_partial\" key");

    // A well-formed file whose state does not read.
    json doc = json::parse(whole);
    doc["state"]["overall"]["count"] = "many";
    std::string bad_state = dir + "/bad-state.json";
    std::ofstream(bad_state) << doc.dump();
    expect_error(ringscope("merge", {lat[0], bad_state}), 2, bad_state, "bad analysis state");
    doc = json::parse(whole);
    doc["state"]["overall"]["buckets"] = json::array({json::array({1, 1})});
    std::ofstream(bad_state) << doc.dump();
    expect_error(ringscope("merge", {bad_state}), 2, bad_state, "do not add up");

    expect_error(ringscope("merge", {lat[0], dir + "/missing.json"}), 1, dir + "/missing.json",
                 "cannot open");

    // A partial that cannot be written.
    const std::string unwritable = dir + "/no/such/folder/p.json";
    expect_error(ringscope("sched latency", {"--partial", unwritable, kSchedTraces[0]}), 1, unwritable,
                 "cannot write");

    // A partial of an analysis no loaded plugin merges.
    doc = json::parse(whole);
    doc["analysis"] = "other.analysis";
    doc["command"] = json::array({"no-such-command", "x"});
    std::string foreign = dir + "/foreign.json";
    std::ofstream(foreign) << doc.dump();
    expect_error(ringscope("merge", {foreign}), 2, foreign, "needs the command 'no-such-command'");
}

TEST(Merge, MismatchedPartialsAreRefused) {
    std::string dir = tmpdir("mismatch");
    std::vector<std::string> lat = partials("sched latency --top 3", {kSchedTraces[0]}, tmpdir("mismatch/a"));
    std::vector<std::string> lat10 =
        partials("sched latency --top 10", {kSchedTraces[1]}, tmpdir("mismatch/b"));
    std::vector<std::string> run = partials("sched runtime", {kSchedTraces[1]}, tmpdir("mismatch/c"));
    expect_error(ringscope("merge", {lat[0], run[0]}), 2, run[0],
                 "analysis 'sched.runtime' does not merge with 'sched.latency'");
    expect_error(ringscope("merge", {lat[0], lat10[0]}), 2, lat10[0], "parameters {top=10} differ");
    // A command asked to merge another analysis's partials.
    expect_error(ringscope("sched runtime --merge", {lat[0]}), 2, lat[0], "not of 'sched.runtime'");
    expect_error(ringscope("kvm exits --merge", {lat[0]}), 2, lat[0], "not of 'kvm.exits'");
    expect_error(ringscope("ipt summary --merge", {lat[0]}), 2, lat[0], "not of 'ipt.summary'");
    // Parameters come from the partials.
    Cmd r = ringscope("sched latency --merge --top 4", {lat[0]});
    EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace
