// The SQLite output of `run`: task states as report prints them, names interned as integers, a
// view per event table with the common columns of `events` joined in.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "cli_run.hpp"

namespace ringscope::cli_test {
namespace {

// Writes the run file in a fresh folder and runs it; returns the database's path.
class SqliteOutput : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path().string() + "/cli-test-sqlite-" +
               std::to_string(::getpid());
        std::filesystem::create_directories(dir_);
        std::ofstream(dir_ + "/run.yaml")
            << "inputs:\n  - path: " << trace("full.dat") << "\nanalyses: {}\noutputs:\n  dir: " << dir_
            << "\n  sqlite: trace.sqlite\n";
        const Outcome r = ringscope("run -q '" + dir_ + "/run.yaml'");
        ASSERT_EQ(r.status, 0) << r.err;
        db_ = dir_ + "/trace.sqlite";
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    std::vector<std::string> sql(const std::string& query) {
        const Outcome r = ringscope("sql '" + db_ + "' \"" + query + "\"");
        EXPECT_EQ(r.status, 0) << query << ": " << r.err;
        return lines(r.out);
    }
    std::string dir_, db_;
};

TEST_F(SqliteOutput, TaskStatesAreTheLettersReportPrints) {
    const Outcome report = ringscope("report -N '" + trace("full.dat") + "'");
    ASSERT_EQ(report.status, 0);
    std::map<std::string, int> want, got;
    const std::regex state(R"(prev_state=(\S+))");
    for (const auto& line : lines(report.out)) {
        std::smatch m;
        if (line.find(" sched_switch: ") != std::string::npos && std::regex_search(line, m, state))
            ++want[m[1]];
    }
    ASSERT_GT(want.size(), 3u);  // S, D, R, R+, ... all on this trace
    for (const auto& row : sql("SELECT prev_state, count(*) FROM sched_switch GROUP BY prev_state")) {
        const auto bar = row.find('|');
        got[row.substr(0, bar)] = std::stoi(row.substr(bar + 1));
    }
    EXPECT_EQ(got, want);
    EXPECT_EQ(sql("SELECT DISTINCT typeof(prev_state) FROM sched_switch"), std::vector<std::string>{"text"});
}

TEST_F(SqliteOutput, EventRowsHoldIntegersAndEventsSpellsThemOut) {
    // comm and the event's name are ids into strings and event_types: no text per event.
    EXPECT_EQ(sql("SELECT DISTINCT typeof(comm_id) || typeof(type_id) FROM event_rows"),
              std::vector<std::string>{"integerinteger"});
    EXPECT_EQ(sql("SELECT count(*) FROM events WHERE comm IS NULL OR name IS NULL"),
              std::vector<std::string>{"0"});
    EXPECT_EQ(sql("SELECT count(*) FROM events"), sql("SELECT count(*) FROM event_rows"));
    // The same names as report prints for the same event.
    const Outcome report = ringscope("report -N '" + trace("full.dat") + "'");
    const std::vector<std::string> first =
        sql("SELECT comm || '-' || pid || ' ' || name FROM events ORDER BY id LIMIT 1");
    ASSERT_EQ(first.size(), 1u);
    const std::string line = lines(report.out).at(1);
    const auto comm = first[0].substr(0, first[0].find(' '));
    EXPECT_NE(line.find(comm), std::string::npos) << line;
    EXPECT_NE(line.find(first[0].substr(first[0].find(' ') + 1) + ":"), std::string::npos) << line;
}

TEST_F(SqliteOutput, OneRowPerEventHoldsItsFields) {
    // event_rows is the only table of events (one b-tree insert per event): the event types are
    // views of it, their fields in its f<N> columns.
    EXPECT_EQ(sql("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
              (std::vector<std::string>{"cpus", "event_rows", "event_types", "inputs", "strings", "tasks"}));
    EXPECT_EQ(
        sql("SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name IN (SELECT table_name FROM "
            "event_types)"),
        sql("SELECT count(*) FROM event_types"));
    EXPECT_EQ(sql("SELECT sum(count) FROM event_types"), sql("SELECT count(*) FROM event_rows"));
    EXPECT_EQ(sql("SELECT count(*) FROM event_rows AS r JOIN sched_switch AS s ON s.event_id = r.id WHERE "
                  "r.f1 = s.prev_pid AND r.f3 = s.prev_state AND r.f5 = s.next_pid"),
              sql("SELECT count FROM event_types WHERE name = 'sched_switch'"));
}

TEST_F(SqliteOutput, EveryEventTableHasAViewJoiningEvents) {
    const std::vector<std::string> types = sql("SELECT table_name || '|' || count FROM event_types");
    ASSERT_GT(types.size(), 10u);
    for (const auto& row : types) {
        const std::string table = row.substr(0, row.find('|')), count = row.substr(row.find('|') + 1);
        EXPECT_EQ(sql("SELECT count(*) FROM \\\"v_" + table +
                      "\\\" AS v JOIN events AS e ON e.id = v.event_id "
                      "WHERE e.ts = v.ts AND e.cpu = v.cpu AND e.comm = v.comm AND e.name = "
                      "(SELECT name FROM event_types WHERE table_name = '" +
                      table + "')"),
                  std::vector<std::string>{count})
            << table;
    }
}

}  // namespace
}  // namespace ringscope::cli_test
