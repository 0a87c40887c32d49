// Wrong inputs are told in one line, sizes are bounded up front, tables read as people read them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"

namespace ringscope::cli_test {
namespace {

TEST(WrongInput, RunOfATraceDatSaysWhatItIs) {
    const Outcome r = ringscope("run '" + trace("basic.dat") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("a trace.dat file, not a run file"), std::string::npos) << r.err;
}

TEST(WrongInput, IptDumpOfATraceDatSaysWhatItIs) {
    for (const char* sub : {"dump", "sync", "summary"}) {
        const Outcome r = ringscope(std::string("ipt ") + sub + " '" + trace("basic.dat") + "'");
        EXPECT_EQ(r.status, 1) << sub;
        EXPECT_EQ(r.out, "") << sub;
        EXPECT_NE(r.err.find("a trace.dat file, not an Intel PT stream"), std::string::npos) << sub << r.err;
    }
}

// The trace.dat check above reads no byte of a pipe: the command gets the whole stream.
TEST(WrongInput, IptFromAPipeKeepsItsHead) {
    const std::string pt = "'" + source("tests/data/ipt/clean.pt") + "'";
    for (const char* sub : {"dump", "summary"}) {
        const Outcome file = ringscope(std::string("ipt ") + sub + " " + pt);
        const Outcome pipe = ringscope(std::string("ipt ") + sub + " /dev/stdin < " + pt);
        EXPECT_EQ(file.status, 0) << sub << file.err;
        EXPECT_EQ(pipe.status, 0) << sub << pipe.err;
        EXPECT_GT(file.out.size(), 200u) << sub;
        EXPECT_EQ(pipe.out, file.out) << sub;
    }
}

TEST(WrongInput, DumpPagesOfATraceDatSaysWhatItIs) {
    const Outcome r = ringscope("dump-pages '" + trace("basic.dat") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err.substr(0, 2000);
    EXPECT_NE(r.err.find("not a raw trace_pipe_raw capture"), std::string::npos) << r.err.substr(0, 2000);
}

// A record that runs past its sub-buffer: the pages are still printed, the record is named on
// stderr, and the exit code says the file is bad.
TEST(WrongInput, DumpPagesFailsOnABadRecord) {
    const std::string good = source("tests/data/ringbuffer/busy.cpu0.raw");
    const std::string bad = std::filesystem::temp_directory_path().string() + "/cli-test-bad-record-" +
                            std::to_string(::getpid());
    std::filesystem::copy_file(good, bad, std::filesystem::copy_options::overwrite_existing);
    {
        // The first record's header: type_len 0 (length in the next word), a length past the page.
        std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
        const char word[8] = {0, 0, 0, 0, 0, 0x10, 0, 0};
        f.seekp(16);
        f.write(word, sizeof word);
    }
    const Outcome ok = ringscope("dump-pages '" + good + "'");
    EXPECT_EQ(ok.status, 0) << ok.err;
    const Outcome r = ringscope("dump-pages '" + bad + "'");
    std::filesystem::remove(bad);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("page 0: 0 events"), std::string::npos) << r.out.substr(0, 500);
    EXPECT_NE(r.err.find("runs past"), std::string::npos) << r.err;
}

// The HTML report's "Events by type" heading says "top 20 of N" only when there are more than 20.
TEST(Headings, EventsByTypeIsTrue) {
    const std::string dir =
        std::filesystem::temp_directory_path().string() + "/cli-test-html-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    auto heading = [&](const std::string& file) {
        std::ofstream(dir + "/run.yaml")
            << "inputs:\n  - path: " << trace(file) << "\nanalyses: {}\noutputs:\n  dir: " << dir
            << "\n  html: report.html\n";
        const Outcome r = ringscope("run -q '" + dir + "/run.yaml'");
        EXPECT_EQ(r.status, 0) << r.err;
        std::ifstream in(dir + "/report.html");
        const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const auto at = html.find("<h3>Events by type (");
        return at == std::string::npos ? std::string() : html.substr(at, html.find("</h3>", at) - at);
    };
    const std::string few = heading("function.dat"), many = heading("full.dat");
    EXPECT_EQ(few.find("top "), std::string::npos) << few;
    EXPECT_NE(few.find("(1 type, "), std::string::npos) << few;  // function events only
    EXPECT_NE(many.find("(top 20 of "), std::string::npos) << many;
    std::filesystem::remove_all(dir);
}

TEST(WrongInput, DumpPagesRefusesASubBufferSizeTheKernelCannotHave) {
    for (const char* size : {"100", "4097", "0x1000", "-1"}) {
        const Outcome r = ringscope("dump-pages '" + trace("basic.dat") + "' " + size);
        EXPECT_EQ(r.status, 2) << size << ": " << r.err;
    }
}

TEST(WrongInput, APluginFolderThatDoesNotExistIsAnError) {
    const Outcome r = ringscope("--plugin-dir /no/such/dir plugins");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("/no/such/dir"), std::string::npos) << r.err;
}

TEST(WrongInput, AnAnalysisThatFindsNoneOfItsEventsSaysSo) {
    Outcome r = ringscope("kvm exits '" + trace("basic.dat") + "'");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.err.find("no kvm_exit events"), std::string::npos) << r.err;
    // A selection that leaves nothing out of a trace that has them.
    r = ringscope("sched latency --comm no-such-task '" + trace("basic.dat") + "'");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.err.find("no sched_wakeup/sched_switch events selected"), std::string::npos) << r.err;
    r = ringscope("sched latency '" + trace("basic.dat") + "'");
    EXPECT_EQ(r.err, "");
}

TEST(Bounds, TimelineOfNanosecondWindowsIsRefusedUpFront) {
    Outcome r = ringscope("sched timeline --window 7 '" + trace("basic.dat") + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("1us at least"), std::string::npos) << r.err;
    // The same in a run, at --check already.
    r = ringscope("run '" + source("config/sched-latency.yaml") +
                  "' --set analyses.sched.timeline.window=7 --check");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("sched.timeline"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("1us at least"), std::string::npos) << r.err;
}

TEST(Bounds, TimelineOfTooManyWindowsStopsWithAnError) {
    // dropped.dat spans 1.29 s: 1us windows would be 1.29 million.
    const Outcome r = ringscope("sched timeline --window 1us '" + trace("dropped.dat") + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("more than 1000000 windows"), std::string::npos) << r.err;
}

TEST(Bounds, TopIsBounded) {
    Outcome r = ringscope("sched latency --top 1000000000 '" + trace("basic.dat") + "'");
    EXPECT_EQ(r.status, 2);
    r = ringscope("run '" + source("config/sched-latency.yaml") +
                  "' --set analyses.sched.latency.top=1000000000 --check");
    EXPECT_EQ(r.status, 2);
    r = ringscope("kvm exits --top 10000000 '" + trace("basic.dat") + "'");
    EXPECT_EQ(r.status, 2);
}

TEST(Tables, DurationsHaveUnitsAndNoScientificNotation) {
    const Outcome r = ringscope("sched latency '" + trace("full.dat") + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("e+"), std::string::npos) << r.out.substr(0, 3000);
    EXPECT_NE(r.out.find(" us"), std::string::npos);
    // The headings do not name a unit the values do not have ("max_ns" over "8.011 ms").
    EXPECT_EQ(r.out.find("_ns"), std::string::npos) << r.out.substr(0, 3000);
    EXPECT_NE(r.out.find(" max\n"), std::string::npos) << r.out.substr(0, 3000);
    // JSON keeps exact integers in ns.
    const Outcome j = ringscope("sched latency --format json '" + trace("full.dat") + "'");
    const auto doc = nlohmann::json::parse(j.out);
    EXPECT_TRUE(doc["overall"]["max_ns"].is_number_unsigned());
    EXPECT_TRUE(doc["worst"][0]["wakeup_ts"].is_number_unsigned());
}

TEST(Tables, TimestampsAsReportPrintsThem) {
    const Outcome j = ringscope("sched latency --format json '" + trace("full.dat") + "'");
    const auto doc = nlohmann::json::parse(j.out);
    const uint64_t ts = doc["worst"][0]["wakeup_ts"];
    char want[48];
    std::snprintf(want, sizeof want, "%llu.%06llu",
                  static_cast<unsigned long long>((ts + 500) / 1000 / 1000000),
                  static_cast<unsigned long long>((ts + 500) / 1000 % 1000000));
    const Outcome r = ringscope("sched latency '" + trace("full.dat") + "'");
    EXPECT_NE(r.out.find(want), std::string::npos) << want;
}

TEST(Tables, TasksWorstFirstAndSortable) {
    const Outcome j = ringscope("sched latency --format json '" + trace("full.dat") + "'");
    ASSERT_EQ(j.status, 0);
    const auto tasks = nlohmann::json::parse(j.out)["tasks"];
    ASSERT_GT(tasks.size(), 2u);
    for (size_t i = 1; i < tasks.size(); ++i)
        EXPECT_GE(tasks[i - 1]["max_ns"].get<uint64_t>(), tasks[i]["max_ns"].get<uint64_t>()) << i;
    const Outcome c = ringscope("sched latency --sort count --format json '" + trace("full.dat") + "'");
    // --sort orders the tables; the JSON document of `sched latency` keeps its own order, so ask CSV.
    const Outcome csv = ringscope("sched latency --sort count --format csv '" + trace("full.dat") + "'");
    ASSERT_EQ(csv.status, 0) << csv.err;
    const auto rows = lines(csv.out);
    size_t at = 0;
    while (at < rows.size() && rows[at] != "# sched.latency.tasks") ++at;
    ASSERT_LT(at + 3, rows.size());
    uint64_t prev = UINT64_MAX;
    for (size_t i = at + 2; i < rows.size() && !rows[i].empty(); ++i) {
        // pid,comm,count,...
        const size_t a = rows[i].find(','), b = rows[i].find(',', a + 1), e = rows[i].find(',', b + 1);
        const uint64_t count = std::stoull(rows[i].substr(b + 1, e - b - 1));
        EXPECT_LE(count, prev) << rows[i];
        prev = count;
    }
    const Outcome bad = ringscope("sched latency --sort nosuch '" + trace("full.dat") + "'");
    EXPECT_EQ(bad.status, 2);
    (void)c;
}

TEST(Tables, KvmReasonsNameTheirIsa) {
    const std::string kvm = shared_kvm_trace();
    if (kvm.empty()) GTEST_SKIP() << "the shared KVM fixture is absent";
    const Outcome r = ringscope("kvm exits '" + kvm + "'");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.find(" VMX ") != std::string::npos || r.out.find(" SVM ") != std::string::npos)
        << r.out.substr(0, 2000);
}

// A plugin decoder's events print in the line of the release --compat names: under 3.4 the flags
// column after "[CPU]" (dots: a decoder's events carry no flags), as every trace.dat line does.
TEST(DecoderInput, LineFollowsCompat) {
    const std::string pt = "'" + source("tests/data/ipt/clean.pt") + "'";
    const Outcome v31 = ringscope("report --compat 3.1 -j 1 --input-format ipt " + pt);
    const Outcome v34 = ringscope("report --compat 3.4 -j 1 --input-format ipt " + pt);
    const Outcome v34j = ringscope("report --compat 3.4 -j 2 --input-format ipt " + pt);
    ASSERT_EQ(v31.status, 0) << v31.err;
    ASSERT_EQ(v34.status, 0) << v34.err;
    EXPECT_EQ(v34.out, v34j.out);
    const auto l31 = lines(v31.out), l34 = lines(v34.out);
    ASSERT_EQ(l31.size(), l34.size());
    ASSERT_GT(l31.size(), 2u);
    for (size_t i = 1; i < l31.size(); ++i) {  // after "cpus=N"
        const size_t cpu = l31[i].find("] ");
        ASSERT_NE(cpu, std::string::npos) << l31[i];
        // the 3.1 line with " ....." after "[CPU]"
        EXPECT_EQ(l34[i], l31[i].substr(0, cpu + 1) + " ....." + l31[i].substr(cpu + 1)) << i;
    }
}

}  // namespace
}  // namespace ringscope::cli_test
