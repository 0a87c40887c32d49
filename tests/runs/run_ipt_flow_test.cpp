// `ringscope run` over Intel PT streams with their code (tests/data/ipt/flow): the instruction flow's
// events (ipt:call, ipt:return, ipt:branch, ipt:error) come out of the run's event outputs exactly
// as `report -O ipt:...` prints them over the same input and options, filtered as `report -F`
// filters them, merged in time order with trace.dat inputs; bad options are errors at their line.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_cli.hpp"
#include "tests/perfetto/bundle_reader.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using namespace ringscope::test;

const std::string kFlow = data("ipt/flow/");
const std::string kCode = kFlow + "code.bin:0x400000";

// The rows of a query, each row's columns joined by '|'.
std::vector<std::string> sql_rows(const std::string& db, const std::string& query) {
    std::vector<std::string> out;
    sqlite3* h = nullptr;
    EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK) << db;
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(h, query.c_str(), -1, &st, nullptr), SQLITE_OK)
        << query << ": " << sqlite3_errmsg(h);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        std::string row;
        for (int i = 0; i < sqlite3_column_count(st); ++i) {
            const unsigned char* t = sqlite3_column_text(st, i);
            row += (i ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "");
        }
        out.push_back(std::move(row));
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return out;
}

// `report --format json` of the stream with these options: per event name, "ts|field|field..."
// in the fields' order; and the names in event order.
struct ReportEvents {
    std::map<std::string, std::vector<std::string>> by_name;
    std::vector<std::string> names;
};
ReportEvents report_events(const std::string& options, const std::string& pt) {
    Cmd r = sh("'" + cli_path() + "' report --format json " + options + " '" + pt + "'");
    EXPECT_EQ(r.code, 0) << r.err;
    ReportEvents out;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        // In the fields' order, as the sqlite views have them.
        const nlohmann::ordered_json ev = nlohmann::ordered_json::parse(line, nullptr, false);
        if (ev.is_discarded() || !ev.contains("event")) continue;
        std::string row = std::to_string(ev["ts"].get<uint64_t>());
        for (const auto& [k, v] : ev["fields"].items())
            row += "|" + (v.is_string() ? v.get<std::string>() : v.dump());
        const std::string name = ev["event"];
        out.by_name[name].push_back(row);
        out.names.push_back(name);
    }
    return out;
}

// The same of a run's sqlite output (the per-type views: ts, then the event's fields).
ReportEvents sqlite_events(const std::string& db, int input = 0) {
    ReportEvents out;
    const std::string where = " WHERE input = " + std::to_string(input);
    for (const std::string& name : sql_rows(db, "SELECT name FROM events" + where + " ORDER BY id"))
        out.names.push_back(name);
    for (const std::string& name : sql_rows(db, "SELECT DISTINCT name FROM events" + where)) {
        std::vector<std::string> columns;
        for (const std::string& c : sql_rows(db, "SELECT name FROM pragma_table_info('" + name + "')"))
            if (c != "event_id") columns.push_back(c);
        std::string select = "ts";
        for (const std::string& c : columns) select += ", \"" + c + "\"";
        out.by_name[name] =
            sql_rows(db, "SELECT " + select + " FROM v_" + name + where + " ORDER BY event_id");
    }
    return out;
}

// A run file in DIR with these inputs (YAML list entries) and the rest, run with EXTRA.
Cmd run_yaml(const std::string& dir, const std::string& inputs, const std::string& rest,
             const std::string& extra = "") {
    std::ofstream(dir + "/run.yaml") << "inputs:\n" << inputs << "plugins:\n  load: [ipt, sched]\n" << rest;
    return sh("'" + cli_path() + "' run --quiet '" + dir + "/run.yaml' " + extra);
}

std::string pt_input(const std::string& pt, const std::string& flow) {
    return "  - path: " + kFlow + pt + "\n    options:\n      ipt:\n        raw: " + kCode +
           "\n        kallsyms: " + kFlow + "code.kallsyms\n        flow: " + flow + "\n";
}

// Each flow (calls; branches, with the broken stream's errors) gives in sqlite the events report
// prints, field for field and in the same order.
TEST(RunIptFlow, SqliteRowsAreReportsEvents) {
    for (const auto& [pt, flow] : {std::pair{"clean.pt", "calls"}, {"broken.pt", "branches"}}) {
        const std::string dir = tmpdir(std::string("ipt-flow-") + flow);
        Cmd r = run_yaml(dir, pt_input(pt, flow),
                         "outputs: {dir: " + dir + ", sqlite: t.sqlite, json: r.json}\n");
        ASSERT_EQ(r.code, 0) << r.err;
        const ReportEvents want = report_events(
            "-O ipt:raw=" + kCode + " -O ipt:kallsyms=" + kFlow + "code.kallsyms -O ipt:flow=" + flow,
            kFlow + pt);
        ReportEvents got = sqlite_events(dir + "/t.sqlite");
        ASSERT_GT(want.names.size(), 3000u) << pt;
        EXPECT_EQ(got.names, want.names) << pt;
        EXPECT_EQ(got.by_name, want.by_name) << pt;
        if (std::string(flow) == "branches") {
            EXPECT_GT(got.by_name["branch"].size(), 1000u);
            EXPECT_FALSE(got.by_name["error"].empty());
        }
        // json's inputs count them too.
        std::ifstream in(dir + "/r.json");
        const json results = json::parse(in);
        EXPECT_EQ(results["inputs"][0]["events"].get<size_t>(), want.names.size());
    }
}

// --set reaches an input's options; the shipped example runs, and its perfetto-trace output holds
// every event of the run.
TEST(RunIptFlow, ConfigExampleAndSet) {
    const std::string dir = tmpdir("ipt-flow-config");
    Cmd r = sh("'" + cli_path() + "' run --quiet '" + config("pt-flow.yaml") + "' --set outputs.dir=" + dir +
               " --set inputs.0.options.ipt.flow=branches");
    ASSERT_EQ(r.code, 0) << r.err;
    ReportEvents want = report_events("-O ipt:raw=" + kCode + " -O ipt:flow=branches", kFlow + "clean.pt");
    ReportEvents got = sqlite_events(dir + "/trace.sqlite");
    EXPECT_EQ(got.names, want.names);
    EXPECT_EQ(got.by_name["branch"].size(), want.by_name["branch"].size());
    std::ifstream f(dir + "/trace.perfetto-trace", std::ios::binary);
    const std::string trace((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    size_t events = 0;
    for (const Bundle& b : read_bundles(trace)) events += b.events.size();
    EXPECT_EQ(events, want.names.size());
    // FILEs after the run file replace its inputs and take its first input's options.
    Cmd other = sh("'" + cli_path() + "' run --quiet '" + config("pt-flow.yaml") +
                   "' --set outputs.dir=" + dir + " '" + kFlow + "broken.pt'");
    ASSERT_EQ(other.code, 0) << other.err;
    const ReportEvents broken = report_events(
        "-O ipt:raw=" + kCode + " -O ipt:kallsyms=" + kFlow + "code.kallsyms", kFlow + "broken.pt");
    EXPECT_EQ(sqlite_events(dir + "/trace.sqlite").by_name, broken.by_name);
    EXPECT_NE(broken.by_name.count("error"), 0u);
    // Its analysis's tables in the table outputs.
    EXPECT_NE(read_file(dir + "/results.txt").find("ipt.calls.functions:"), std::string::npos);
    EXPECT_NE(read_file(dir + "/results.csv").find("# ipt.calls.functions"), std::string::npos);
}

// The run's filters reach the flow's events as report -F does; next to a trace.dat input each
// filter reaches the input whose events it names, and the events merge in time order.
TEST(RunIptFlow, FiltersAndMergeWithATraceDat) {
    const std::string dir = tmpdir("ipt-flow-filters");
    const std::string filter = "return: depth > 3 && symbol == \"f39\"";
    Cmd r = run_yaml(dir, pt_input("clean.pt", "calls"),
                     "filters: ['" + filter + "']\noutputs: {dir: " + dir + ", sqlite: t.sqlite}\n");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string options = "-O ipt:raw=" + kCode + " -O ipt:kallsyms=" + kFlow + "code.kallsyms ";
    const ReportEvents want = report_events(options + "-F '" + filter + "'", kFlow + "clean.pt");
    ASSERT_GT(want.names.size(), 10u);
    EXPECT_EQ(sqlite_events(dir + "/t.sqlite").by_name, want.by_name);

    Cmd m = run_yaml(dir, "  - " + data("traces/basic.dat") + "\n" + pt_input("clean.pt", "calls"),
                     "filters: [sched_switch, 'call: depth > 3']\nanalyses: {sched.runtime: {}}\n"
                     "outputs: {dir: " +
                         dir + ", sqlite: m.sqlite, html: m.html}\n");
    ASSERT_EQ(m.code, 0) << m.err;
    const ReportEvents calls = report_events(options + "-F 'call: depth > 3'", kFlow + "clean.pt");
    EXPECT_EQ(sqlite_events(dir + "/m.sqlite", 1).by_name, calls.by_name);
    Cmd switches = sh("'" + cli_path() + "' report -F sched_switch '" + data("traces/basic.dat") +
                      "' | grep -c sched_switch:");
    EXPECT_EQ(
        sql_rows(dir + "/m.sqlite", "SELECT count(*) FROM events WHERE input = 0 AND name = 'sched_switch'"),
        std::vector<std::string>{switches.out.substr(0, switches.out.find('\n'))});
    EXPECT_EQ(
        sql_rows(dir + "/m.sqlite", "SELECT count(*) FROM events WHERE name NOT IN ('sched_switch', 'call')"),
        std::vector<std::string>{"0"});
    // The command line's --event reaches each input whose events it names, the same way.
    Cmd e = sh("'" + cli_path() + "' run --quiet '" + dir +
               "/run.yaml' --set 'filters=[]' --set outputs.sqlite=e.sqlite --set outputs.html=e.html" +
               " --event sched_switch --event ipt/return");
    ASSERT_EQ(e.code, 0) << e.err;
    const ReportEvents returns = report_events(options, kFlow + "clean.pt");
    EXPECT_EQ(sql_rows(dir + "/e.sqlite", "SELECT input, name, count(*) FROM events GROUP BY input, name"),
              (std::vector<std::string>{"0|sched_switch|" + switches.out.substr(0, switches.out.find('\n')),
                                        "1|return|" + std::to_string(returns.by_name.at("return").size())}));
    // Time order across the inputs: no event's ts is below the one before it.
    EXPECT_EQ(sql_rows(dir + "/m.sqlite",
                       "SELECT count(*) FROM events a JOIN events b ON b.id = a.id + 1 "
                       "WHERE b.ts < a.ts"),
              std::vector<std::string>{"0"});
    std::ifstream html(dir + "/m.html");
    const std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
    EXPECT_NE(page.find("ipt/call: " + std::to_string(calls.names.size()) + " events"), std::string::npos);
}

// ipt.calls: per function, the `name() {` and `} /* name */` lines of `ipt calls` over the same
// input, the deepest call its indentation shows, and the errors it prints.
TEST(RunIptFlow, CallsAnalysisIsIptCalls) {
    for (const char* pt : {"clean.pt", "broken.pt"}) {
        const std::string dir = tmpdir(std::string("ipt-flow-calls-") + pt);
        Cmd r = run_yaml(dir, pt_input(pt, "calls"),
                         "analyses: {ipt.calls: {}}\noutputs: {dir: " + dir + ", json: r.json}\n");
        ASSERT_EQ(r.code, 0) << r.err;
        Cmd calls = sh("'" + cli_path() + "' ipt calls --raw " + kCode + " --kallsyms " + kFlow +
                       "code.kallsyms " + kFlow + pt);
        ASSERT_EQ(calls.code, 0) << calls.err;
        std::map<std::string, std::vector<uint64_t>> want;  // calls, returns, max_depth
        uint64_t errors = 0;
        std::istringstream lines(calls.out);
        for (std::string line; std::getline(lines, line);) {
            const size_t indent = line.find_first_not_of(' ');
            const std::string text = line.substr(indent);
            if (text.find(": error: ") != std::string::npos) {
                ++errors;
            } else if (text.size() > 4 && text.compare(text.size() - 4, 4, "() {") == 0) {
                auto& f = want.try_emplace(text.substr(0, text.size() - 4), std::vector<uint64_t>{0, 0, 0})
                              .first->second;
                ++f[0];
                f[2] = std::max<uint64_t>(f[2], indent / 2);
            } else if (text.rfind("} /* ", 0) == 0) {
                auto& f = want.try_emplace(text.substr(5, text.size() - 8), std::vector<uint64_t>{0, 0, 0})
                              .first->second;
                ++f[1];
            }
        }
        std::ifstream in(dir + "/r.json");
        const json res = json::parse(in)["analyses"]["ipt.calls"];
        std::map<std::string, std::vector<uint64_t>> got;
        for (const auto& row : res["ipt.calls.functions"])
            got[row["function"]] = {row["calls"], row["returns"], row["max_depth"]};
        ASSERT_GT(want.size(), 20u) << pt;
        EXPECT_EQ(got, want) << pt;
        EXPECT_EQ(res["ipt.calls.errors"][0]["errors"].get<uint64_t>(), errors) << pt;
        EXPECT_EQ(errors != 0, std::string(pt) == "broken.pt");
    }
}

// A bad option is an error at its line (the value's, or the key's for an option no plugin has),
// one line each, before any work.
TEST(RunIptFlow, BadOptionsAreErrorsAtTheirLine) {
    const std::string dir = tmpdir("ipt-flow-bad");
    const std::string yaml = dir + "/run.yaml";
    struct Case {
        std::string option, where, message;
    };
    const Case cases[] = {
        {"flow: everything", ":6:15: ", "-O ipt:flow=everything: not calls, branches or packets"},
        {"elf: /nonexistent/prog", ":6:14: ", "-O ipt:elf: /nonexistent/prog"},
        {"colour: red",
         ":6:9: ", "no loaded plugin has the option 'ipt.colour' (ipt has: elf, raw, kallsyms, flow)"},
    };
    for (const Case& c : cases) {
        std::ofstream(yaml) << "inputs:\n  - path: " << kFlow << "clean.pt\n    options:\n      ipt:\n"
                            << "        raw: " << kCode << "\n        " << c.option
                            << "\noutputs: {dir: " << dir << "/out, sqlite: t.sqlite}\n";
        Cmd r = sh("'" + cli_path() + "' run '" + yaml + "'");
        EXPECT_EQ(r.code, 2) << c.option;
        EXPECT_NE(r.err.find(yaml + c.where), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("1 error, nothing was run"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir + "/out")) << c.option;
    }
    Cmd s = sh("'" + cli_path() + "' run '" + yaml + "' --set inputs.0.options.ipt.colour=blue");
    EXPECT_NE(s.err.find(yaml + ":6:9: no loaded plugin has the option 'ipt.colour'"), std::string::npos)
        << s.err;
    // The html page's timeline needs a trace.dat input.
    std::ofstream(yaml) << "inputs:\n  - " << kFlow << "clean.pt\noutputs: {dir: " << dir
                        << "/out, html: r.html}\n";
    Cmd h = sh("'" + cli_path() + "' run '" + yaml + "'");
    EXPECT_EQ(h.code, 2) << h.err;
    EXPECT_NE(h.err.find(yaml + ":3:" + std::to_string(28 + dir.size()) +
                         ": outputs.html: its timeline shows trace.dat inputs"),
              std::string::npos)
        << h.err;
    // An option --set gives is named by it.
    std::ofstream(yaml) << "inputs:\n  - path: " << kFlow << "clean.pt\n    options: {ipt: {raw: '" << kCode
                        << "'}}\noutputs: {dir: " << dir << "/out, sqlite: t.sqlite}\n";
    Cmd f = sh("'" + cli_path() + "' run '" + yaml + "' --set inputs.0.options.ipt.flow=sideways");
    EXPECT_EQ(f.code, 2) << f.err;
    EXPECT_NE(f.err.find("--set 1:1:27: " + kFlow +
                         "clean.pt: -O ipt:flow=sideways: not calls, branches or packets"),
              std::string::npos)
        << f.err;
}

}  // namespace
