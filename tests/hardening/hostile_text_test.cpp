// Text from a trace is data (issue #25): a task name that is a spreadsheet formula, not UTF-8 and a
// terminal escape sequence at once (tests/data/hardening/make_hostile_comm.py) goes through every
// machine format and terminal output escaped by the one function, and never stops a command.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

#include "hostile_common.hpp"

namespace {

using namespace ringscope::test;

// The name as the escaping writes it in UTF-8 text (JSON strings after decoding, SQLite).
const std::string kEscapedComm = "=\\xed\\xa0\\x80\x1b[m";

class HostileComm : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_FALSE(dir.path().empty());
        trace = dir / "hostile.dat";
        const ShellResult r = run_shell(
            "python3 " + sh_quote(std::string(RINGSCOPE_TEST_DATA_DIR) + "/hardening/make_hostile_comm.py") +
            " " + sh_quote(trace) + " 2>&1");
        ASSERT_EQ(r.status, 0) << r.out;
    }
    TempDir dir;
    std::string trace;
};

// Every line a JSON document (nlohmann rejects invalid UTF-8); the comms seen.
std::vector<std::string> json_lines_comms(const std::string& text) {
    std::vector<std::string> comms;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        nlohmann::json j;
        EXPECT_NO_THROW(j = nlohmann::json::parse(line)) << line;
        if (j.is_object() && j.contains("comm")) comms.push_back(j["comm"].get<std::string>());
    }
    return comms;
}

TEST_F(HostileComm, ReportJsonIsValidUtf8AndKeepsTheBytesAsEscapes) {
    const ShellResult r = run_shell(sh_quote(cli()) + " report -N --format json " + sh_quote(trace));
    ASSERT_EQ(r.status, 0);
    const auto comms = json_lines_comms(r.out);
    ASSERT_FALSE(comms.empty());
    // kworker/u8:2 and the like: the hostile part and the rest of the name.
    EXPECT_TRUE(std::any_of(comms.begin(), comms.end(),
                            [](const std::string& c) { return c.rfind(kEscapedComm, 0) == 0; }));
}

TEST_F(HostileComm, ReportCsvCellsCannotBeFormulas) {
    const ShellResult r = run_shell(sh_quote(cli()) + " report -N --format csv " + sh_quote(trace));
    ASSERT_EQ(r.status, 0);
    EXPECT_EQ(r.out.find(",=\\xed"), std::string::npos) << "a cell starts with '='";
    EXPECT_NE(r.out.find(",'=\\xed\\xa0\\x80\x1b[m/"), std::string::npos);
}

TEST_F(HostileComm, ReportTextStaysTraceCmdsBytes) {
    // trace-cmd prints comms raw: report's own lines must not change.
    const ShellResult r = run_shell(sh_quote(cli()) + " report -N " + sh_quote(trace));
    ASSERT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("=\xed\xa0\x80\x1b[m"), std::string::npos);
}

TEST_F(HostileComm, SchedJsonAndPartialDoNotAbort) {
    for (const char* what : {"runtime", "latency"}) {
        const ShellResult j =
            run_shell(sh_quote(cli()) + " sched " + what + " --format json " + sh_quote(trace));
        ASSERT_EQ(j.status, 0) << what;
        nlohmann::json doc;
        ASSERT_NO_THROW(doc = nlohmann::json::parse(j.out)) << what;
        EXPECT_NE(j.out.find("\\\\xed\\\\xa0\\\\x80"), std::string::npos) << what;
        const std::string part = dir / (std::string(what) + ".partial.json");
        EXPECT_EQ(run_shell(sh_quote(cli()) + " sched " + what + " --partial " + sh_quote(part) + " " +
                            sh_quote(trace))
                      .status,
                  0);
        const ShellResult m = run_shell(sh_quote(cli()) + " merge --format json " + sh_quote(part));
        EXPECT_EQ(m.status, 0) << what;
        EXPECT_EQ(m.out, j.out) << what;
    }
}

TEST_F(HostileComm, TerminalTablesCarryNoEscapeSequence) {
    const ShellResult r = run_shell(sh_quote(cli()) + " sched runtime " + sh_quote(trace));
    ASSERT_EQ(r.status, 0);
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
    EXPECT_NE(r.out.find("=\\xed\\xa0\\x80\\x1b[m"), std::string::npos);
    const ShellResult csv = run_shell(sh_quote(cli()) + " sched runtime --format csv " + sh_quote(trace));
    EXPECT_NE(csv.out.find(",'=\\xed"), std::string::npos);
}

TEST_F(HostileComm, RunWritesEveryOutput) {
    const std::string yaml = dir / "run.yaml";
    write_text(yaml, "inputs: [" + trace +
                         "]\nplugins: {load: [sched]}\nanalyses:\n  sched.runtime: {}\n"
                         "  sched.latency: {}\noutputs:\n  json: out.json\n  csv: out.csv\n  text: out.txt\n"
                         "  perfetto: out.perfetto.json\n  sqlite: out.sqlite\n  html: out.html\n");
    const ShellResult r = run_shell("cd " + sh_quote(dir.path()) + " && " + sh_quote(cli()) +
                                    " run --quiet " + sh_quote(yaml) + " 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    nlohmann::json doc, perfetto;
    ASSERT_NO_THROW(doc = nlohmann::json::parse(read_file(dir / "out.json")));
    EXPECT_NE(doc.dump().find("=\\\\xed\\\\xa0\\\\x80"), std::string::npos);
    ASSERT_NO_THROW(perfetto = nlohmann::json::parse(read_file(dir / "out.perfetto.json")));
    EXPECT_EQ(read_file(dir / "out.txt").find('\x1b'), std::string::npos);
    EXPECT_NE(read_file(dir / "out.csv").find(",'=\\xed"), std::string::npos);
    const ShellResult html =
        run_shell("python3 -c \"open('" + (dir / "out.html") + "', 'rb').read().decode('utf-8')\" 2>&1");
    EXPECT_EQ(html.status, 0) << "the HTML report is not UTF-8: " << html.out;
    const ShellResult q = run_shell(sh_quote(cli()) + " sql " + sh_quote(dir / "out.sqlite") +
                                    " \"SELECT DISTINCT comm FROM events WHERE comm LIKE '=%'\"");
    EXPECT_EQ(q.status, 0);
    EXPECT_EQ(q.out.find('\x1b'), std::string::npos) << "sql prints for a terminal";
}

TEST(HostileMessages, AVersionStringIsQuotedShortAndEscaped) {
    TempDir dir;
    const std::string f = dir / "version.dat";
    write_text(f, std::string("\x17\x08\x44tracing6\x1b[2J\x1b]0;owned\x07") + std::string(65536, 'A') +
                      std::string(1, '\0') + std::string(64, '\0'));
    const ShellResult r = run_shell(sh_quote(cli()) + " report " + sh_quote(f) + " 2>&1 >/dev/null");
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out.substr(0, 200);
    EXPECT_EQ(r.out.find('\x07'), std::string::npos);
    EXPECT_LT(r.out.size(), 400u) << "the 64 KB version string is echoed";
    EXPECT_NE(r.out.find("6\\x1b[2J"), std::string::npos) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

}  // namespace
