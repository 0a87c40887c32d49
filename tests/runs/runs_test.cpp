// `ringscope run` on the shipped configs (config/*.yaml) with the committed traces: the outputs'
// contents are checked against independent computations and the reference tools' oracles.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <ringscope/trace.hpp>

#include "run_cli.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using namespace ringscope::test;

// Perfetto JSON: how often each process/thread name is given (the tracks).
std::map<std::string, int> track_names(const json& trace) {
    std::map<std::string, int> names;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == "M") names[e["args"]["name"].get<std::string>()]++;
    return names;
}

// The sum of one column over a result table's rows.
uint64_t column_sum(const json& rows, const char* column) {
    uint64_t n = 0;
    for (const auto& row : rows) n += row[column].get<uint64_t>();
    return n;
}

// The viewer's data a report page embeds (null when it has none).
json embedded_blob(const std::string& html) {
    const std::string open = "<script id=\"ringscope-data\" type=\"application/json\">";
    const size_t at = html.find(open);
    if (at == std::string::npos) return json();
    const size_t end = html.find("</script>", at);
    return json::parse(html.substr(at + open.size(), end - at - open.size()), nullptr, false);
}

// The run's results in a report page ("" when it has none).
std::string results_section(const std::string& html) {
    const size_t at = html.find("<section id=\"results\"", html.find("<body>"));
    return at == std::string::npos ? std::string() : html.substr(at, html.find("</body>", at) - at);
}

class Db {
  public:
    explicit Db(const std::string& p) {
        EXPECT_EQ(sqlite3_open_v2(p.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    }
    ~Db() { sqlite3_close(db_); }
    std::vector<std::vector<std::string>> rows(const std::string& sql) const {
        std::vector<std::vector<std::string>> out;
        sqlite3_stmt* st = nullptr;
        EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr), SQLITE_OK)
            << sql << ": " << sqlite3_errmsg(db_);
        if (!st) return out;
        while (sqlite3_step(st) == SQLITE_ROW) {
            std::vector<std::string> r;
            for (int i = 0; i < sqlite3_column_count(st); ++i) {
                const unsigned char* t = sqlite3_column_text(st, i);
                r.push_back(t ? reinterpret_cast<const char*>(t) : "");
            }
            out.push_back(std::move(r));
        }
        sqlite3_finalize(st);
        return out;
    }
    int64_t one(const std::string& sql) const {
        auto r = rows(sql);
        return r.empty() || r[0].empty() ? -1 : std::stoll(r[0][0]);
    }

  private:
    sqlite3* db_ = nullptr;
};

// Events per "system/name" through the SDK's own iteration (independent of the sinks).
std::map<std::string, uint64_t> sdk_counts(const std::string& path, uint64_t& total) {
    std::map<std::string, uint64_t> counts;
    total = 0;
    ringscope::TraceOpenOptions o;
    o.load_plugins = false;
    auto t = ringscope::Trace::open(path, o);
    EXPECT_TRUE(t) << path;
    if (!t) return counts;
    for (const auto& ev : t->events()) {
        ++counts[std::string(ev.system()) + "/" + std::string(ev.name())];
        ++total;
    }
    return counts;
}

// Wakeup latency from the SQLite events, as the issue defines it: from a pid's first pending
// sched_wakeup(_new) to the next sched_switch to it.
std::vector<int64_t> latencies_from_sql(const Db& db) {
    std::vector<int64_t> out;
    std::map<int64_t, int64_t> pending;
    auto wake = db.rows(
        "SELECT e.ts, e.name, COALESCE(w.pid, wn.pid, -1), COALESCE(s.next_pid, -1) FROM events e "
        "LEFT JOIN sched_wakeup w ON w.event_id = e.id LEFT JOIN sched_wakeup_new wn ON wn.event_id = e.id "
        "LEFT JOIN sched_switch s ON s.event_id = e.id "
        "WHERE e.name IN ('sched_wakeup','sched_wakeup_new','sched_switch') ORDER BY e.id");
    for (const auto& r : wake) {
        int64_t ts = std::stoll(r[0]);
        if (r[1] == "sched_switch") {
            auto it = pending.find(std::stoll(r[3]));
            if (it != pending.end()) {
                out.push_back(ts - it->second);
                pending.erase(it);
            }
        } else {
            pending.emplace(std::stoll(r[2]), ts);  // a second wakeup does not restart the clock
        }
    }
    return out;
}

}  // namespace

TEST(Runs, SchedLatencyStudy) {
    std::string out = tmpdir("sched");
    Cmd r = run_config("sched-latency.yaml", out);
    ASSERT_EQ(r.code, 0) << r.err;

    // SQLite: row counts equal the trace's event counts, per type too.
    uint64_t total = 0;
    auto counts = sdk_counts(data("traces/full.dat"), total);
    EXPECT_EQ(total, 10929u);  // tests/data/traces/README.md
    Db db(out + "/trace.sqlite");
    EXPECT_EQ(db.one("SELECT count(*) FROM events"), static_cast<int64_t>(total));
    for (const auto& row : db.rows("SELECT system, name, table_name, count FROM event_types")) {
        std::string key = row[0] + "/" + row[1];
        EXPECT_EQ(std::stoull(row[3]), counts[key]) << key;
        EXPECT_EQ(db.one("SELECT count(*) FROM \"" + row[2] + "\""), static_cast<int64_t>(counts[key]))
            << key;
    }
    EXPECT_EQ(db.one("SELECT count(*) FROM cpus"), 2);
    EXPECT_EQ(db.one("SELECT sum(events) FROM cpus"), static_cast<int64_t>(total));

    // Spot values: every sched_switch row equals trace-cmd report -R's line for it, and its
    // prev_state the letters of report -N's line (the kernel's print fmt).
    Cmd oracle = sh("xz -dc '" + data("traces/oracle/full-R.out.xz") + "'");
    ASSERT_EQ(oracle.code, 0);
    Cmd letters_oracle = sh("xz -dc '" + data("traces/oracle/full-N.out.xz") + "'");
    ASSERT_EQ(letters_oracle.code, 0);
    std::vector<std::string> letters;
    {
        std::istringstream in(letters_oracle.out);
        const std::regex state(R"( sched_switch: .* prev_state=(\S+) ==> )");
        for (std::string l; std::getline(in, l);) {
            std::smatch m;
            if (std::regex_search(l, m, state)) letters.push_back(m[1]);
        }
    }
    std::regex sw(
        R"(\[(\d+)\]\s+(\d+)\.(\d+): sched_switch:\s+prev_comm=(.*) prev_pid=(\d+) prev_prio=(\d+) prev_state=(\d+) next_comm=(.*) next_pid=(\d+) next_prio=(\d+))");
    auto rows = db.rows(
        "SELECT e.cpu, e.ts, s.prev_comm, s.prev_pid, s.prev_prio, s.prev_state, s.next_comm, s.next_pid, "
        "s.next_prio "
        "FROM sched_switch s JOIN events e ON e.id = s.event_id ORDER BY s.event_id");
    std::istringstream lines(oracle.out);
    std::string line;
    size_t i = 0, oracle_events = 0;
    while (std::getline(lines, line)) {
        if (line.rfind("cpus=", 0) == 0) continue;
        ++oracle_events;
        std::smatch m;
        if (!std::regex_search(line, m, sw)) continue;
        ASSERT_LT(i, rows.size());
        const auto& row = rows[i++];
        EXPECT_EQ(std::stoi(m[1]), std::stoi(row[0])) << line;
        EXPECT_EQ(std::stoll(m[2]) * 1000000 + std::stoll(m[3]), (std::stoll(row[1]) + 500) / 1000)
            << line;  // report rounds to the µs
        EXPECT_EQ(m[4], row[2]) << line;
        EXPECT_EQ(m[5], row[3]) << line;
        EXPECT_EQ(m[6], row[4]) << line;
        ASSERT_LT(i - 1, letters.size());
        EXPECT_EQ(letters[i - 1], row[5]) << line;
        EXPECT_EQ(m[8], row[6]) << line;
        EXPECT_EQ(m[9], row[7]) << line;
        EXPECT_EQ(m[10], row[8]) << line;
    }
    EXPECT_EQ(i, rows.size());
    EXPECT_EQ(i, counts["sched/sched_switch"]);
    EXPECT_EQ(oracle_events, total);

    // The latency analysis agrees with the latencies recomputed from the SQLite rows.
    json res = json::parse(read_file(out + "/results.json"));
    const json& lat = res["analyses"]["sched.latency"];
    auto lats = latencies_from_sql(db);
    ASSERT_FALSE(lats.empty());
    const json& overall = lat["sched.latency.overall"][0];
    EXPECT_EQ(overall["count"].get<uint64_t>(), lats.size());
    EXPECT_EQ(overall["max_ns"].get<int64_t>(), *std::max_element(lats.begin(), lats.end()));
    EXPECT_EQ(overall["min_ns"].get<int64_t>(), *std::min_element(lats.begin(), lats.end()));
    EXPECT_EQ(lat["sched.latency.worst"].size(),
              std::min<size_t>(20, lats.size()));  // top: 20 from the config
    EXPECT_EQ(res["inputs"][0]["events"].get<uint64_t>(), total);

    // Runtime: per-CPU switches equal the switch rows per CPU.
    for (const auto& c : res["analyses"]["sched.runtime"]["sched.runtime.cpus"]) {
        int cpu = c["cpu"].get<int>();
        EXPECT_EQ(
            c["switches"].get<int64_t>(),
            db.one("SELECT count(*) FROM sched_switch s JOIN events e ON e.id = s.event_id WHERE e.cpu = " +
                   std::to_string(cpu)));
    }
    // Timeline windows of 5 ms (the config's window), on multiples of 5 ms; the first and last are
    // cut to the trace.
    const json& tl = res["analyses"]["sched.timeline"]["sched.timeline"];
    ASSERT_GT(tl.size(), 2u);
    EXPECT_EQ(tl[1]["window_ns"].get<uint64_t>(), 5000000u);
    EXPECT_LE(tl[0]["window_ns"].get<uint64_t>(), 5000000u);
    for (const auto& w : tl) EXPECT_EQ(w["window_start_ns"].get<uint64_t>() % 5000000u, 0u);

    // Perfetto JSON: parses, CPU tracks named, one task slice per switch away from a non-idle task
    // (plus those still running at the end).
    json pf = json::parse(read_file(out + "/trace.json"));
    std::map<std::string, int> names;
    size_t slices = 0, instants = 0;
    for (const auto& e : pf["traceEvents"]) {
        std::string ph = e["ph"];
        if (ph == "M") names[e["args"]["name"].get<std::string>()]++;
        if (ph == "X" && e["cat"] == "sched") ++slices;
        if (ph == "i") ++instants;
    }
    EXPECT_EQ(names["CPU 0"], 1);
    EXPECT_EQ(names["CPU 1"], 1);
    EXPECT_EQ(names["full CPUs"], 1);
    int64_t want = 0;
    for (int cpu = 0; cpu < 2; ++cpu) {
        std::string c = std::to_string(cpu);
        // Switches whose previous switch on that CPU ran a task, and a running task at the end.
        want += db.one(
            "SELECT count(*) FROM (SELECT s.next_pid, LAG(s.next_pid) OVER (ORDER BY s.event_id) AS before "
            "FROM sched_switch s JOIN events e ON e.id = s.event_id WHERE e.cpu = " +
            c + ") WHERE before IS NOT NULL AND before != 0");
        want += db.one(
            "SELECT s.next_pid != 0 FROM sched_switch s JOIN events e ON e.id = s.event_id WHERE e.cpu = " +
            c + " ORDER BY s.event_id DESC LIMIT 1");
    }
    EXPECT_EQ(static_cast<int64_t>(slices), want);
    EXPECT_EQ(static_cast<int64_t>(instants),
              db.one("SELECT count(*) FROM events WHERE name IN "
                     "('sched_wakeup','sched_wakeup_new','sched_process_fork',"
                     "'sched_process_exec','sched_process_exit','sched_migrate_task','print')"));
    // The "running CPUs" counter: one sample per change of a CPU between idle and busy, replayed
    // from the switch rows.
    std::vector<int> want_counter, counter;
    std::map<std::string, bool> busy;
    int running = 0;
    for (const auto& row :
         db.rows("SELECT e.cpu, s.next_pid FROM sched_switch s JOIN events e ON e.id = s.event_id "
                 "ORDER BY s.event_id")) {
        bool now = row[1] != "0";
        if (busy[row[0]] == now) continue;
        busy[row[0]] = now;
        running += now ? 1 : -1;
        want_counter.push_back(running);
    }
    for (const auto& e : pf["traceEvents"])
        if (e["ph"] == "C" && e["name"] == "full running CPUs")
            counter.push_back(e["args"]["cpus"].get<int>());
    EXPECT_FALSE(want_counter.empty());
    EXPECT_EQ(counter, want_counter);

    // The HTML report: the viewer's offline page of the trace (its data embedded) with the
    // results under it, one file, nothing fetched from elsewhere.
    std::string html = read_file(out + "/report.html");
    const json blob = embedded_blob(html);
    ASSERT_TRUE(blob.is_object()) << html.substr(0, 300);
    // The page names the run it reports (its header and title; tests/browser/run_html_test.mjs).
    EXPECT_EQ(blob["run"], json({{"title", "Scheduler latency study"}, {"config", "sched-latency.yaml"}}));
    uint64_t viewer_events = 0;
    for (const auto& e : blob["meta"]["events"]) viewer_events += e["count"].get<uint64_t>();
    EXPECT_EQ(viewer_events, total);  // every event the trace holds, as the viewer counts them
    EXPECT_FALSE(blob["cpus"]["lanes"].empty());
    const std::string results = results_section(html);
    ASSERT_FALSE(results.empty());
    for (const char* s :
         {"id=\"summary\"", "id=\"sched-latency\"", "id=\"sched-timeline\"", "<svg", "Worst wakeups"})
        EXPECT_NE(results.find(s), std::string::npos) << s;
    // Each analysis's tables.
    for (const char* t : {"sched.latency.overall", "sched.latency.worst", "sched.latency.tasks",
                          "sched.runtime.tasks", "sched.runtime.cpus", "sched.timeline"})
        EXPECT_NE(results.find("data-name=\"" + std::string(t) + "\""), std::string::npos) << t;
    EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // only the SVG namespace
    EXPECT_EQ(html.find("https://"), std::string::npos);
    EXPECT_FALSE(std::regex_search(html, std::regex(R"(<(script|img|iframe)[^>]* src=)")))
        << "a script loaded";
    EXPECT_FALSE(std::regex_search(html, std::regex(R"(<link[^>]* href="(?!data:))"))) << "a linked asset";
    // Tables for people: a unit per duration, no scientific notation, the per-task latencies sorted
    // by their worst wakeup, largest first, the exact value kept for sorting in the browser.
    EXPECT_FALSE(std::regex_search(results, std::regex(R"(>[^<]*\de[+-]?\d)"))) << "scientific notation";
    const size_t per_task = results.find("<h3>Per task</h3>");
    ASSERT_NE(per_task, std::string::npos);
    const std::string table = results.substr(per_task, results.find("</table>", per_task) - per_task);
    EXPECT_NE(table.find("<th data-key=\"max_ns\" data-dir=\"desc\">max</th>"), std::string::npos)
        << table.substr(0, 400);
    std::vector<double> worst;
    const std::regex row(
        R"re(<tr>(?:<td[^>]*>[^<]*</td>){9}<td class="n" data-v="([0-9.]+)">([^<]*)</td></tr>)re");
    for (std::sregex_iterator it(table.begin(), table.end(), row), end; it != end; ++it) {
        worst.push_back(std::stod((*it)[1]));
        EXPECT_TRUE(std::regex_match((*it)[2].str(), std::regex(R"(\d+(\.\d{3})? (ns|us|ms|s))")))
            << (*it)[2];
    }
    EXPECT_GE(worst.size(), 5u) << table.substr(0, 400);
    EXPECT_TRUE(std::is_sorted(worst.rbegin(), worst.rend())) << "per-task latencies not worst first";

    // `ringscope sql` on the same database.
    Cmd q = sh("'" + cli_path() + "' sql '" + out + "/trace.sqlite' 'SELECT count(*) FROM events'");
    EXPECT_EQ(q.code, 0) << q.err;
    EXPECT_EQ(q.out, std::to_string(total) + "\n");
    Cmd bad = sh("'" + cli_path() + "' sql '" + out + "/trace.sqlite' 'SELEC 1'");
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("syntax error"), std::string::npos) << bad.err;
}

// The report page stays under the viewer's size cap (RINGSCOPE_VIEW_EXPORT_CAP lowers it: the
// committed traces are far below 20 MB) and the run says when it embedded less than the full detail.
TEST(Runs, HtmlReportKeptUnderTheCapSaysSo) {
    std::string out = tmpdir("html-cap");
    Cmd full = run_config("sched-latency.yaml", out + "/full");
    ASSERT_EQ(full.code, 0) << full.err;
    EXPECT_EQ(full.err.find("kept under"), std::string::npos) << full.err;
    const auto full_size = fs::file_size(out + "/full/report.html");
    ASSERT_GT(full_size, 1000000u);
    Cmd cut = sh("RINGSCOPE_VIEW_EXPORT_CAP=1000000 '" + cli_path() + "' run '" +
                 config("sched-latency.yaml") + "' --quiet --set 'outputs.dir=" + out + "/cut'");
    ASSERT_EQ(cut.code, 0) << cut.err;
    EXPECT_NE(cut.err.find("report.html: kept under 1000000 bytes: lanes at "), std::string::npos) << cut.err;
    EXPECT_LE(fs::file_size(out + "/cut/report.html"), 1000000u);
    const std::string html = read_file(out + "/cut/report.html");
    EXPECT_TRUE(embedded_blob(html).is_object());
    EXPECT_NE(results_section(html).find("data-name=\"sched.latency.tasks\""), std::string::npos);
}

TEST(Runs, SetOverridesTheFile) {
    std::string out = tmpdir("set");
    Cmd r = run_config("sched-latency.yaml", out,
                       "--set analyses.sched.latency.top=3 --set analyses.sched.timeline=false");
    ASSERT_EQ(r.code, 0) << r.err;
    json res = json::parse(read_file(out + "/results.json"));
    EXPECT_EQ(res["analyses"]["sched.latency"]["sched.latency.worst"].size(), 3u);
    EXPECT_FALSE(res["analyses"].contains("sched.timeline"));

    Cmd bad = run_config("sched-latency.yaml", out, "--set analyses.sched.latency.top=lots");
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("--set 2:1:"), std::string::npos) << bad.err;  // --set 1 is outputs.dir
    EXPECT_NE(bad.err.find("'lots' is not an integer"), std::string::npos) << bad.err;
}

TEST(Runs, KvmExitStudyWithGuestSymbols) {
    std::string out = tmpdir("kvm");
    Cmd r = run_config("kvm-exits.yaml", out);
    ASSERT_EQ(r.code, 0) << r.err;
    json res = json::parse(read_file(out + "/results.json"));
    const json& k = res["analyses"]["kvm.exits"];
    EXPECT_EQ(column_sum(k["kvm.exits.reasons"], "count"), 340u);  // tests/data/kvm/README.md

    // Guest functions per reason: counted again from the C example's oracle (exit FUNC+0xOFF).
    std::map<std::pair<std::string, std::string>, uint64_t> want;
    std::istringstream lines(read_file(data("kvm/kvm.expected-extra")));
    std::string line;
    // No "exit FUNC" where the guest was in user space: the analysis counts those as unresolved.
    std::regex ex(R"(kvm_exit\s+reason (\S+) rip 0x[0-9a-f]+ (exit ([^+ ]+))?)");
    while (std::getline(lines, line)) {
        std::smatch m;
        if (std::regex_search(line, m, ex)) ++want[{m[1], m[2].matched ? m[3].str() : "[unresolved]"}];
    }
    ASSERT_FALSE(want.empty());
    size_t checked = 0;
    for (const auto& f : k["kvm.exits.functions"]) {
        std::string fn = f["function"];
        fn = fn.substr(0, fn.find('+'));
        auto it = want.find({f["reason"].get<std::string>(), fn});
        ASSERT_NE(it, want.end()) << f.dump();
        EXPECT_EQ(f["count"].get<uint64_t>(), it->second) << f.dump();
        ++checked;
    }
    EXPECT_GT(checked, 0u);

    // Perfetto: one slice per exit on the vCPU track.
    json pf = json::parse(read_file(out + "/trace.json"));
    size_t kvm_slices = 0;
    bool vcpu_track = false;
    for (const auto& e : pf["traceEvents"]) {
        if (e["ph"] == "X" && e["cat"] == "kvm") ++kvm_slices;
        if (e["ph"] == "M" && e["args"]["name"] == "vCPU 0") vcpu_track = true;
    }
    EXPECT_TRUE(vcpu_track);
    EXPECT_EQ(kvm_slices, 340u);
    std::string html = read_file(out + "/report.html");
    EXPECT_NE(html.find("id=\"kvm-exits\""), std::string::npos);
    EXPECT_NE(html.find("Guest functions per reason"), std::string::npos);
    std::string csv = read_file(out + "/results.csv");
    EXPECT_NE(csv.find("# kvm.exits.reasons"), std::string::npos);
}

TEST(Runs, HostGuestMerge) {
    std::string out = tmpdir("hostguest");
    Cmd r = run_config("host-guest.yaml", out);
    ASSERT_EQ(r.code, 0) << r.err;
    Db db(out + "/trace.sqlite");
    // tests/data/kvm-agent/counts.txt
    EXPECT_EQ(db.one("SELECT events FROM inputs WHERE name = 'host'"), 64437);
    EXPECT_EQ(db.one("SELECT events FROM inputs WHERE name = 'vm2'"), 8010);
    EXPECT_EQ(db.one("SELECT count(*) FROM events"), 64437 + 8010);
    EXPECT_EQ(db.one("SELECT count(*) FROM events WHERE input = 1 AND name = 'sched_switch'"), 899);
    // Merged in time order: the ids follow the timestamps.
    EXPECT_EQ(db.one("SELECT count(*) FROM events a JOIN events b ON b.id = a.id + 1 WHERE b.ts < a.ts"), 0);
    json res = json::parse(read_file(out + "/results.json"));
    EXPECT_EQ(column_sum(res["analyses"]["kvm.exits"]["kvm.exits.reasons"], "count"), 22834u);
    auto names = track_names(json::parse(read_file(out + "/trace.json")));
    EXPECT_EQ(names["host CPUs"], 1);
    EXPECT_EQ(names["vm2 CPUs"], 1);
    EXPECT_EQ(names["host KVM vCPUs"], 1);
}

TEST(Runs, PtSummary) {
    std::string out = tmpdir("pt");
    Cmd check = sh("'" + cli_path() + "' run --check '" + config("pt-summary.yaml") + "'");
    if (check.code == 2 && check.err.find("unknown analysis 'ipt.summary'") != std::string::npos)
        GTEST_SKIP() << "the ipt plugin does not offer ipt.summary yet";
    ASSERT_EQ(check.code, 0) << check.err;
    Cmd r = run_config("pt-summary.yaml", out);
    ASSERT_EQ(r.code, 0) << r.err;
    json res = json::parse(read_file(out + "/results.json"));
    EXPECT_TRUE(res["analyses"].contains("ipt.summary"));
    EXPECT_FALSE(res["analyses"]["ipt.summary"].empty());
    // As many packets as libipt lists for the stream (P lines of its transcript).
    std::istringstream lines(read_file(data("ipt/clean.libipt.txt")));
    std::string line;
    uint64_t libipt_packets = 0;
    while (std::getline(lines, line)) libipt_packets += line.rfind("P ", 0) == 0;
    EXPECT_EQ(res["analyses"]["ipt.summary"]["ipt.summary.totals"][0]["packets"].get<uint64_t>(),
              libipt_packets);
}

// What `ringscope PLUGIN-COMMAND ARGS` prints (the subcommand on its own, its own pass).
std::string command_output(const std::string& args) {
    Cmd c = sh("'" + cli_path() + "' " + args);
    EXPECT_EQ(c.code, 0) << args << "\n" << c.err;
    return c.out;
}

// The shipped default: every output, checked against the subcommands and the SDK's own counts.
TEST(Runs, DefaultConfig) {
    Cmd check = sh("'" + cli_path() + "' run --check '" + config("default.yaml") + "'");
    EXPECT_EQ(check.code, 0) << check.err;
    std::string out = tmpdir("default");
    Cmd r = run_config("default.yaml", out);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string basic = data("traces/basic.dat");

    // The analyses' tables are byte for byte what the subcommands print with the config's parameters.
    std::string want;
    for (const char* fmt : {"text", "csv"}) {
        std::string f = std::string(" --format ") + fmt + " '" + basic + "'";
        want = command_output("sched latency --top 10" + f) + "\n" + command_output("sched runtime" + f) +
               "\n" + command_output("sched timeline --window 10ms" + f);
        EXPECT_EQ(read_file(out + (fmt == std::string("text") ? "/results.txt" : "/results.csv")), want)
            << fmt;
    }
    json res = json::parse(read_file(out + "/results.json"));
    EXPECT_EQ(res["analyses"]["sched.runtime"],
              json::parse(command_output("sched runtime --format json '" + basic + "'")));
    EXPECT_EQ(res["analyses"]["sched.timeline"],
              json::parse(command_output("sched timeline --format json '" + basic + "'")));

    uint64_t total = 0;
    auto counts = sdk_counts(basic, total);
    EXPECT_EQ(total, 1042u);  // tests/data/traces/README.md
    EXPECT_EQ(res["inputs"][0]["events"].get<uint64_t>(), total);
    EXPECT_EQ(res["reading"]["events"].get<uint64_t>(), total);
    Db db(out + "/trace.sqlite");
    EXPECT_EQ(db.one("SELECT count(*) FROM events"), static_cast<int64_t>(total));
    EXPECT_EQ(db.one("SELECT count(*) FROM sched_switch"),
              static_cast<int64_t>(counts["sched/sched_switch"]));
    EXPECT_EQ(counts["sched/sched_switch"], 126u);
    // Runtime's switches per CPU add up to the trace's sched_switch events.
    EXPECT_EQ(column_sum(res["analyses"]["sched.runtime"]["sched.runtime.cpus"], "switches"), 126u);

    auto names = track_names(json::parse(read_file(out + "/trace.json")));
    EXPECT_EQ(names["CPU 0"], 1);
    EXPECT_EQ(names["CPU 1"], 1);
    std::string html = read_file(out + "/report.html");
    for (const char* s : {"id=\"summary\"", "id=\"sched-latency\"", "id=\"sched-timeline\"", "Worst wakeups"})
        EXPECT_NE(html.find(s), std::string::npos) << s;
}

// The point of a run: several analyses, one read of the traces. sched latency + runtime + kvm exits
// over host + guest read every CPU-data page once (the engine's process-wide page counter; three
// passes through the subcommands would load each page three times), and give exactly what the three
// subcommands give, each with its own pass.
TEST(Runs, AnalysesShareOnePassAndEqualTheSubcommands) {
    std::string out = tmpdir("onepass");
    const std::string host = data("kvm-agent/host.dat"), guest = data("kvm-agent/host-vm2.dat");
    std::string yaml = out + "/run.yaml";
    std::ofstream(yaml)
        << "inputs:\n  - {path: " << host << ", name: host}\n  - {path: " << guest
        << ", name: vm2}\nplugins: {load: [sched, kvm]}\n"
        << "analyses:\n  sched.latency: {top: 10}\n  sched.runtime: {}\n  kvm.exits: {top: 5}\n"
        << "outputs: {dir: " << out << "/o, json: r.json, text: r.txt, csv: r.csv}\n";
    Cmd r = sh("'" + cli_path() + "' run --quiet '" + yaml + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    json res = json::parse(read_file(out + "/o/r.json"));

    const json& reading = res["reading"];
    EXPECT_EQ(reading["events"].get<uint64_t>(), 64437u + 8010u);  // tests/data/kvm-agent/counts.txt
    ASSERT_GT(reading["cpu_data_pages"].get<uint64_t>(), 100u);
    EXPECT_EQ(reading["pages_loaded"].get<uint64_t>(), reading["cpu_data_pages"].get<uint64_t>());

    const std::string files = " '" + host + "' '" + guest + "'";
    const std::string lat_cmd = "sched latency --top 10", run_cmd = "sched runtime",
                      kvm_cmd = "kvm exits --top 5";
    for (const char* fmt : {"text", "csv"}) {
        std::string f = std::string(" --format ") + fmt + files;
        std::string want = command_output(lat_cmd + f) + "\n" + command_output(run_cmd + f) + "\n" +
                           command_output(kvm_cmd + f);
        EXPECT_EQ(read_file(out + (fmt == std::string("text") ? "/o/r.txt" : "/o/r.csv")), want) << fmt;
    }
    EXPECT_EQ(res["analyses"]["sched.runtime"],
              json::parse(command_output(run_cmd + " --format json" + files)));
    EXPECT_EQ(res["analyses"]["kvm.exits"], json::parse(command_output(kvm_cmd + " --format json" + files)));
    json lat = json::parse(command_output(lat_cmd + " --format json" + files));
    const json& mine = res["analyses"]["sched.latency"];
    EXPECT_EQ(mine["sched.latency.overall"][0], lat["overall"]);
    EXPECT_EQ(mine["sched.latency.worst"], lat["worst"]);
    EXPECT_EQ(mine["sched.latency.tasks"], lat["tasks"]);
    EXPECT_EQ(mine["sched.latency.histogram"], lat["histogram"]);

    // The numbers themselves (counts.txt): every exit, every switch of both inputs.
    EXPECT_EQ(column_sum(res["analyses"]["kvm.exits"]["kvm.exits.reasons"], "count"), 22834u);
    EXPECT_EQ(column_sum(res["analyses"]["sched.runtime"]["sched.runtime.cpus"], "switches"), 18769u + 899u);
    // Wakeups that reached a switch, counted per file through the SDK (latency follows each input
    // on its own).
    uint64_t woken = 0;
    for (const auto& path : {host, guest}) {
        ringscope::TraceOpenOptions o;
        o.load_plugins = false;
        auto t = ringscope::Trace::open(path, o);
        ASSERT_TRUE(t);
        std::set<int64_t> pending;
        for (const auto& ev : t->events()) {
            if (ev.name() == "sched_wakeup" || ev.name() == "sched_wakeup_new")
                pending.insert(*ev.integer("pid"));
            else if (ev.name() == "sched_switch")
                woken += pending.erase(*ev.integer("next_pid"));
        }
    }
    EXPECT_GT(woken, 100u);
    EXPECT_EQ(mine["sched.latency.overall"][0]["count"].get<uint64_t>(), woken);
}

// Filters apply to every event analysis of the run: only CPU 1's switches are counted.
TEST(Runs, FiltersApplyToTheAnalyses) {
    std::string out = tmpdir("filters");
    std::string yaml = out + "/run.yaml";
    std::ofstream(yaml) << "inputs: [" << data("traces/basic.dat")
                        << "]\nfilters: ['sched_switch: CPU == 1']\n"
                        << "analyses: {sched.runtime: {}}\noutputs: {dir: " << out << ", json: r.json}\n";
    Cmd r = sh("'" + cli_path() + "' run --quiet '" + yaml + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    json res = json::parse(read_file(out + "/r.json"));
    const json& cpus = res["analyses"]["sched.runtime"]["sched.runtime.cpus"];
    ASSERT_EQ(cpus.size(), 1u) << cpus.dump();
    EXPECT_EQ(cpus[0]["cpu"].get<int>(), 1);
    uint64_t on_cpu1 = 0;
    ringscope::TraceOpenOptions o;
    o.load_plugins = false;
    auto t = ringscope::Trace::open(data("traces/basic.dat"), o);
    ASSERT_TRUE(t);
    for (const auto& ev : t->events()) on_cpu1 += ev.name() == "sched_switch" && ev.cpu() == 1;
    EXPECT_GT(on_cpu1, 0u);
    EXPECT_EQ(cpus[0]["switches"].get<uint64_t>(), on_cpu1);
}
