// `ringscope convert` on the committed traces (and, when present, ../shared's external traces):
// the output decoded by tests/perfetto/proto_reader.hpp holds every event report prints, once,
// with its time, CPU, pid and every field's value; the drops report prints are its ftrace stats.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "framework/engine/trace_set.hpp"
#include "framework/perfetto/ftrace_schema.hpp"
#include "tests/perfetto/conversion_check.hpp"
#include "tests/support/shell_command.hpp"

namespace fs = std::filesystem;

namespace ringscope::perfetto {
namespace {

using namespace convert_check;

// Every committed trace.dat (25: traces/, fgraph/ with big-endian ppc and i386 ones, io/, kvm*/).
TEST(PerfettoConvert, CommittedTracesRoundTrip) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(RINGSCOPE_TEST_DATA_DIR))
        if (e.path().extension() == ".dat") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    EXPECT_GE(files.size(), 25u);
    for (const auto& f : files) {
        SCOPED_TRACE(f);
        Decoded d = check_conversion({f});
        EXPECT_FALSE(d.events.empty());
    }
}

TEST(PerfettoConvert, TypedEventsWhereTheKernelsFormatFits) {
    Decoded d = check_conversion({data("traces/full.dat")});
    std::map<std::string, size_t> names;
    for (const auto& e : d.events) ++names[e.name];
    // full.dat's 6.18 formats: sched_switch and sched_waking fit their Perfetto messages.
    engine::TraceSet set;
    ASSERT_TRUE(set.add_file(data("traces/full.dat"), engine::OpenOptions{}));
    size_t typed = 0;
    for (const EventType* t : set.file(0).types())
        if (names.count(t->name) && find_typed_event(t->system, t->name)) ++typed;
    EXPECT_GT(typed, 0u);
    EXPECT_GT(names["sched_switch"], 0u);
}

TEST(PerfettoConvert, GenericFunctionFieldsAreNamed) {
    // full.dat's timer events print their function with %ps.
    Decoded d = check_conversion({data("traces/full.dat")});
    EXPECT_GT(d.symbol_fields, 0u);
}

// threads.dat (tests/data/view/make-threads.sh): every task of its workload wrote "tgid-check tid=T
// tgid=G" to trace_marker. The ProcessTree must put each thread in that process, worked out from
// task_newtask and sched_process_exec, never from those lines; a process with threads is named.
// Report's text of threads.dat, and RE's matches in it as a map: group KEY -> group VALUE.
std::string threads_report() {
    const auto report = test::run_shell("RINGSCOPE_COMPAT=3.1 '" + std::string(RINGSCOPE_BINARY_DIR) +
                                        "/ringscope' report '" + data("view/threads.dat") + "'");
    EXPECT_EQ(report.status, 0);
    return report.out;
}
std::map<int64_t, int64_t> pairs(const std::string& text, const std::regex& re, int key = 1, int value = 2) {
    std::map<int64_t, int64_t> out;
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
        out[std::stoll((*it)[key])] = std::stoll((*it)[value]);
    return out;
}
const std::regex kTgidCheck(R"(tgid-check tid=(\d+) tgid=(\d+))");

TEST(PerfettoConvert, ThreadsAreInTheProcessesTheyWrote) {
    const std::string dat = data("view/threads.dat");
    std::map<int64_t, int64_t> written = pairs(threads_report(), kTgidCheck);
    ASSERT_EQ(written.size(), 17u);

    Decoded d = check_conversion({dat});
    size_t threaded = 0;
    for (const auto& [tid, tgid] : written) {
        ASSERT_TRUE(d.tgids[0].count(tid)) << "thread " << tid << " is in the ProcessTree";
        EXPECT_EQ(d.tgids[0][tid], tgid) << "thread " << tid;
        if (tid != tgid) {
            ++threaded;
            EXPECT_TRUE(d.processes[0].count(tgid)) << "process " << tgid << " is listed";
            EXPECT_FALSE(d.processes[0][tgid].empty()) << "process " << tgid << " has its name";
        }
    }
    EXPECT_EQ(threaded, 12u);
}

// threads.dat again: each process made in the trace names its parent process (ProcessTree's
// ppid), the process of the task whose task_newtask made it (a process forked by a thread has the
// thread's process as parent). Expected from report's text: the creator of each task_newtask line
// and the tgids the tasks wrote themselves.
TEST(PerfettoConvert, ProcessesHaveTheirParents) {
    const std::string dat = data("view/threads.dat");
    const std::string report = threads_report();
    std::map<int64_t, int64_t> written = pairs(report, kTgidCheck);
    // "NAME-CREATOR [cpu] ts: task_newtask: pid=CHILD": child -> creator.
    std::map<int64_t, int64_t> creator =
        pairs(report, std::regex(R"(-(\d+) +\[\d+\] [0-9.]+: task_newtask: +pid=(\d+) )"), 2, 1);
    std::map<int64_t, int64_t> want;  // process -> parent process
    for (const auto& [child, by] : creator)
        if (written.count(child) && written[child] == child && written.count(by)) want[child] = written[by];
    ASSERT_EQ(want.size(), 4u) << "proc1-3 made by the main thread, proc4 by a thread of proc3";

    Decoded d = check_conversion({dat});
    for (const auto& [pid, ppid] : want) {
        EXPECT_TRUE(d.processes[0].count(pid)) << "process " << pid << " is listed";
        EXPECT_EQ(d.ppids[0].count(pid) ? d.ppids[0][pid] : -1, ppid) << "process " << pid;
    }
    // Threads are not processes, and a parent from before the trace is not made up.
    for (const auto& [pid, ppid] : d.ppids[0]) EXPECT_TRUE(want.count(pid)) << pid << " has ppid " << ppid;
}

TEST(PerfettoConvert, DroppedEventsAreFtraceStats) {
    Decoded d = check_conversion({data("traces/dropped.dat")});
    uint64_t total = 0;
    for (const auto& [cpu, n] : d.overrun_end[0]) total += n;
    EXPECT_GT(total, 0u);
    EXPECT_GT(d.lost_bundles, 0u);
}

TEST(PerfettoConvert, HostAndGuestAreMachinesOfTheirOwn) {
    Decoded d = check_conversion({data("kvm-agent/host.dat"), data("kvm-agent/host-vm2.dat")});
    std::set<uint32_t> machines;
    for (const auto& e : d.events) machines.insert(e.machine);
    EXPECT_EQ(machines, (std::set<uint32_t>{0, 1}));
}

TEST(PerfettoConvert, ExternalTracesRoundTrip) {
    const fs::path dir = fs::path(RINGSCOPE_SHARED_DIR) / "conformance" / "external-traces";
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent";
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".dat") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    ASSERT_FALSE(files.empty());
    for (const auto& f : files) {
        SCOPED_TRACE(f);
        check_conversion({f});
    }
}

// `ringscope run`'s perfetto-trace output: the run's events, as convert writes them.
TEST(PerfettoConvert, RunOutputHoldsEveryEvent) {
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    const fs::path dir = fs::temp_directory_path() / ("ringscope-perfetto-run-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string basic = data("traces/basic.dat");
    std::ofstream(dir / "run.yaml") << "inputs: ['" << basic << "']\noutputs: {dir: '" << dir.string()
                                    << "', perfetto-trace: t.perfetto-trace}\n";
    auto r = test::run_shell("'" + bin + "' run --quiet '" + (dir / "run.yaml").string() + "' 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    Decoded d = decode_trace(read_file((dir / "t.perfetto-trace").string()));
    std::map<std::string, uint64_t> counts;
    for (const auto& e : d.events) ++counts[e.name];
    EXPECT_EQ(counts, report_counts({basic}).by_name);
    // The same events as convert writes, on one thread or two.
    for (const char* jobs : {"1", "2"}) {
        auto c = test::run_shell("'" + bin + "' convert -q -j " + jobs + " '" + basic + "' -o '" +
                                 (dir / "c.perfetto-trace").string() + "'");
        ASSERT_EQ(c.status, 0);
        Decoded dc = decode_trace(read_file((dir / "c.perfetto-trace").string()));
        EXPECT_TRUE(sorted(dc.events) == sorted(d.events)) << "-j " << jobs;
        EXPECT_EQ(dc.threads, d.threads);
        EXPECT_EQ(dc.overrun_end, d.overrun_end);
    }
    fs::remove_all(dir);
}

// The output decoded by protoc (protobuf-compiler) with tests/data/perfetto/trace_subset.proto,
// Perfetto's own messages and numbers: it parses, every field is one Perfetto declares, and the
// events per name are report's.
TEST(PerfettoConvert, ProtocDecodesItWithPerfettosSchema) {
    if (test::run_shell("protoc --version >/dev/null 2>&1").status != 0)
        GTEST_SKIP() << "protoc (protobuf-compiler) is not installed";
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    const fs::path dir =
        fs::temp_directory_path() / ("ringscope-perfetto-protoc-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string proto_dir = data("perfetto");
    for (const std::vector<std::string>& files :
         {std::vector<std::string>{data("traces/full.dat")},
          {data("traces/function.dat")},
          {data("traces/dropped.dat")},
          {data("kvm/kvm-extra.dat")},
          {data("kvm-agent/host.dat"), data("kvm-agent/host-vm2.dat")}}) {
        SCOPED_TRACE(files.front());
        const std::string out = (dir / "t.perfetto-trace").string();
        ASSERT_EQ(test::run_shell("'" + bin + "' convert -q" + quoted(files) + " -o '" + out + "'").status,
                  0);
        auto r = test::run_shell("protoc --decode=perfetto.protos.Trace --proto_path='" + proto_dir +
                                 "' trace_subset.proto < '" + out + "' 2>&1");
        ASSERT_EQ(r.status, 0) << r.out.substr(0, 2000);
        std::map<std::string, uint64_t> counts;
        static const std::regex oneof(R"re(^      (\w+) \{$)re"),
            generic_name(R"re(^        event_name: "(\w+)"$)re"), unknown(R"re(^\s*[0-9]+[: ])re");
        std::istringstream in(r.out);
        std::string line, pending;
        std::smatch m;
        size_t unknown_fields = 0;
        while (std::getline(in, line)) {
            if (std::regex_search(line, unknown)) ++unknown_fields;
            if (std::regex_match(line, m, oneof)) {
                if (m[1] == "generic")
                    pending = "generic";
                else
                    ++counts[m[1]];
            } else if (!pending.empty() && std::regex_match(line, m, generic_name)) {
                ++counts[m[1]];
                pending.clear();
            }
        }
        EXPECT_EQ(unknown_fields, 0u) << "fields Perfetto does not declare";
        EXPECT_EQ(counts, report_counts(files).by_name);
    }
    fs::remove_all(dir);
}

TEST(PerfettoConvert, BadInputIsOneLineAndNoOutput) {
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    const fs::path dir = fs::temp_directory_path() / ("ringscope-perfetto-bad-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // A trace cut in the middle of its CPU data.
    const std::string whole = read_file(data("traces/basic.dat"));
    const fs::path cut = dir / "cut.dat";
    std::ofstream(cut, std::ios::binary)
        .write(whole.data(), static_cast<std::streamsize>(whole.size() * 2 / 3));
    const fs::path out = dir / "out.perfetto-trace";
    auto r = test::run_shell("'" + bin + "' convert '" + cut.string() + "' -o '" + out.string() + "' 2>&1");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find(cut.string()), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out));
    r = test::run_shell("'" + bin + "' convert '" + data("traces/basic.dat") + "' 2>&1");
    EXPECT_EQ(r.status, 2) << r.out;
    fs::remove_all(dir);
}

}  // namespace
}  // namespace ringscope::perfetto
