// `ringscope convert --compact-sched` (and run's perfetto-trace-compact-sched): sched_switch and
// sched_waking as FtraceEventBundle.CompactSched. Decoded back (delta timestamps summed, comms
// looked up in the bundle's intern table, every column as long as its timestamps), each switch
// (time, prev_state, next_pid, next_prio, next_comm) and waking (time, pid, target_cpu, prio,
// comm, common_flags) equals what the default form holds for the same trace, CPU by CPU; no
// FtraceEvent holds them any more; every other event is written as the default form writes it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "framework/perfetto/ftrace_schema.hpp"
#include "tests/perfetto/bundle_reader.hpp"
#include "tests/support/shell_command.hpp"

namespace fs = std::filesystem;

namespace ringscope::perfetto {
namespace {

using test::Bundle;
using test::packed;
using test::read_message;

const std::string kBin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";

std::string data(const std::string& rel) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/" + rel;
}

// (time, a, b, c, comm, d): a switch's prev_state, next_pid, next_prio, next_comm (d = 0); a
// waking's pid, target_cpu, prio, comm, common_flags. Values as 64-bit patterns.
using Row = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, std::string, uint64_t>;

struct Sched {
    std::map<std::pair<uint32_t, uint32_t>, std::vector<Row>> switches, wakings;  // (machine, cpu)
    std::vector<std::string> others;  // every other FtraceEvent, encoded
    size_t bytes = 0;
};

uint64_t sext32(uint64_t v) {  // an int32 column's value as the typed field writes it
    return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
}

const TypedEvent& typed(const char* name) {
    return *find_typed_event("sched", name);
}

uint32_t number(const TypedEvent& te, std::string_view name) {
    for (const auto& f : te.fields)
        if (f.name == name) return f.number;
    ADD_FAILURE() << name;
    return 0;
}

// The default form's sched_switch / sched_waking FtraceEvent as a Row, or nullopt.
std::optional<std::pair<bool, Row>> default_row(std::string_view ev) {
    const auto m = read_message(ev);
    uint64_t ts = 0, flags = 0;
    for (const auto& f : m) {
        if (f.number == field::kEventTimestamp) ts = f.value;
        if (f.number == field::kEventCommonFlags) flags = f.value;
    }
    for (const auto& f : m) {
        const bool sw = f.number == typed("sched_switch").oneof_field;
        if (!sw && f.number != typed("sched_waking").oneof_field) continue;
        const TypedEvent& te = typed(sw ? "sched_switch" : "sched_waking");
        std::map<uint32_t, uint64_t> v;
        std::string comm;
        const uint32_t comm_no = number(te, sw ? "next_comm" : "comm");
        for (const auto& x : read_message(f.bytes)) {
            if (x.number == comm_no) comm = std::string(x.bytes);
            v[x.number] = x.value;
        }
        if (sw)
            return std::pair{true, Row{ts, v[number(te, "prev_state")], v[number(te, "next_pid")],
                                       v[number(te, "next_prio")], comm, 0}};
        return std::pair{false, Row{ts, v[number(te, "pid")], v[number(te, "target_cpu")],
                                    v[number(te, "prio")], comm, flags}};
    }
    return std::nullopt;
}

void decode_compact(std::string_view bytes, const std::pair<uint32_t, uint32_t>& key, Sched& s) {
    std::map<uint32_t, std::vector<uint64_t>> col;
    std::vector<std::string> table;
    for (const auto& f : read_message(bytes)) {
        if (f.number == field::kCompactInternTable) {
            table.emplace_back(f.bytes);
            continue;
        }
        ASSERT_EQ(f.wire, 2u) << "packed column " << f.number;
        auto v = packed(f.bytes);
        col[f.number].insert(col[f.number].end(), v.begin(), v.end());
    }
    auto rows = [&](uint32_t ts_no, std::initializer_list<uint32_t> cols, bool optional_last,
                    std::vector<Row>& out, bool waking) {
        const auto& ts = col[ts_no];
        for (uint32_t c : cols) {
            if (optional_last && c == *(cols.end() - 1) && col[c].empty()) continue;
            ASSERT_EQ(col[c].size(), ts.size()) << "column " << c;
        }
        uint64_t t = 0;
        for (size_t i = 0; i < ts.size(); ++i) {
            t += ts[i];  // deltas; the first from 0
            auto at = [&](uint32_t c) { return col[c].empty() ? 0 : col[c][i]; };
            const uint64_t comm_index =
                waking ? at(field::kCompactWakingCommIndex) : at(field::kCompactSwitchNextCommIndex);
            ASSERT_LT(comm_index, table.size());
            if (waking)
                out.emplace_back(t, sext32(at(field::kCompactWakingPid)),
                                 sext32(at(field::kCompactWakingTargetCpu)),
                                 sext32(at(field::kCompactWakingPrio)), table[comm_index],
                                 at(field::kCompactWakingCommonFlags));
            else
                out.emplace_back(t, at(field::kCompactSwitchPrevState),
                                 sext32(at(field::kCompactSwitchNextPid)),
                                 sext32(at(field::kCompactSwitchNextPrio)), table[comm_index], 0);
        }
    };
    rows(field::kCompactSwitchTimestamp,
         {field::kCompactSwitchPrevState, field::kCompactSwitchNextPid, field::kCompactSwitchNextPrio,
          field::kCompactSwitchNextCommIndex},
         false, s.switches[key], false);
    rows(field::kCompactWakingTimestamp,
         {field::kCompactWakingPid, field::kCompactWakingTargetCpu, field::kCompactWakingPrio,
          field::kCompactWakingCommIndex, field::kCompactWakingCommonFlags},
         true, s.wakings[key], true);
}

Sched read_sched(const std::string& path) {
    Sched s;
    const std::string bytes = test::slurp(path);
    s.bytes = bytes.size();
    for (const Bundle& b : test::read_bundles(bytes)) {
        const std::pair key{b.machine, b.cpu};
        if (b.compact) decode_compact(*b.compact, key, s);
        for (auto ev : b.events) {
            if (auto r = default_row(ev))
                (r->first ? s.switches : s.wakings)[key].push_back(r->second);
            else
                s.others.emplace_back(ev);
        }
    }
    for (auto* m : {&s.switches, &s.wakings}) {
        std::erase_if(*m, [](const auto& kv) { return kv.second.empty(); });
        for (auto& [k, v] : *m) std::sort(v.begin(), v.end());
    }
    std::sort(s.others.begin(), s.others.end());
    return s;
}

// Converts FILES both ways and compares; returns the compact form's switch count.
size_t check_compact(const std::vector<std::string>& files) {
    SCOPED_TRACE(files.front());
    const fs::path dir = fs::temp_directory_path() / ("ringscope-compact-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::string in;
    for (const auto& f : files) in += " '" + f + "'";
    const std::string plain = (dir / "plain.perfetto-trace").string(),
                      compact = (dir / "c.perfetto-trace").string();
    EXPECT_EQ(test::run_shell("'" + kBin + "' convert -q" + in + " -o '" + plain + "'").status, 0);
    EXPECT_EQ(
        test::run_shell("'" + kBin + "' convert -q --compact-sched" + in + " -o '" + compact + "'").status,
        0);
    Sched p = read_sched(plain), c;
    // The compact form is decoded from CompactSched alone: its FtraceEvents hold none.
    {
        const std::string bytes = test::slurp(compact);
        for (const Bundle& b : test::read_bundles(bytes))
            for (auto ev : b.events) EXPECT_FALSE(default_row(ev)) << "a sched event outside CompactSched";
        c = read_sched(compact);
    }
    EXPECT_EQ(c.switches, p.switches);
    EXPECT_EQ(c.wakings, p.wakings);
    EXPECT_TRUE(c.others == p.others) << c.others.size() << " other events vs " << p.others.size();
    size_t n = 0;
    for (const auto& [k, v] : c.switches) n += v.size();
    if (n > 100) {
        EXPECT_LT(c.bytes, p.bytes);
    }
    fs::remove_all(dir);
    return n;
}

TEST(PerfettoCompactSched, EqualsTheDefaultForm) {
    EXPECT_GT(check_compact({data("traces/full.dat")}), 0u);
    for (const char* f :
         {"traces/basic.dat", "traces/instances.dat", "traces/dropped.dat", "kvm/kvm-extra.dat"})
        check_compact({data(f)});
    check_compact({data("kvm-agent/host.dat"), data("kvm-agent/host-vm2.dat")});
}

TEST(PerfettoCompactSched, ExternalTraces) {
    const fs::path dir = fs::path(RINGSCOPE_SHARED_DIR) / "conformance" / "external-traces";
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent";
    size_t switches = 0;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".dat") switches += check_compact({e.path().string()});
    EXPECT_GT(switches, 0u);
}

// protoc with Perfetto's own messages (tests/data/perfetto/trace_subset.proto) reads the compact
// form: no field Perfetto does not declare, and as many switch timestamps as the default form has
// sched_switch events.
TEST(PerfettoCompactSched, ProtocDecodesIt) {
    if (test::run_shell("protoc --version >/dev/null 2>&1").status != 0)
        GTEST_SKIP() << "protoc (protobuf-compiler) is not installed";
    const fs::path dir =
        fs::temp_directory_path() / ("ringscope-compact-protoc-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string out = (dir / "c.perfetto-trace").string();
    ASSERT_EQ(test::run_shell("'" + kBin + "' convert -q --compact-sched '" + data("traces/full.dat") +
                              "' -o '" + out + "'")
                  .status,
              0);
    auto r = test::run_shell("protoc --decode=perfetto.protos.Trace --proto_path='" + data("perfetto") +
                             "' trace_subset.proto < '" + out + "' 2>&1");
    ASSERT_EQ(r.status, 0) << r.out.substr(0, 2000);
    size_t unknown = 0, stamps = 0, clocks = 0;
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line)) {
        const size_t b = line.find_first_not_of(' ');
        if (b != std::string::npos && std::isdigit(static_cast<unsigned char>(line[b]))) ++unknown;
        if (line.find("switch_timestamp:") != std::string::npos) ++stamps;
        if (line.find("ftrace_clock: FTRACE_CLOCK_LOCAL") != std::string::npos) ++clocks;
    }
    EXPECT_EQ(unknown, 0u) << "fields Perfetto does not declare";
    EXPECT_GT(clocks, 0u);
    size_t switches = 0;
    for (const auto& [k, v] : read_sched(out).switches) switches += v.size();
    EXPECT_EQ(stamps, switches);
    EXPECT_GT(switches, 0u);
    fs::remove_all(dir);
}

// run's perfetto-trace output with perfetto-trace-compact-sched: true writes what convert does.
TEST(PerfettoCompactSched, RunOutputOption) {
    const fs::path dir = fs::temp_directory_path() / ("ringscope-compact-run-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string full = data("traces/full.dat");
    std::ofstream(dir / "run.yaml")
        << "inputs: ['" << full << "']\noutputs: {dir: '" << dir.string()
        << "', perfetto-trace: t.perfetto-trace, perfetto-trace-compact-sched: true}\n";
    auto r = test::run_shell("'" + kBin + "' run --quiet '" + (dir / "run.yaml").string() + "' 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    ASSERT_EQ(test::run_shell("'" + kBin + "' convert -q --compact-sched '" + full + "' -o '" +
                              (dir / "c.perfetto-trace").string() + "'")
                  .status,
              0);
    Sched run = read_sched((dir / "t.perfetto-trace").string()),
          conv = read_sched((dir / "c.perfetto-trace").string());
    size_t compact_bundles = 0;
    const std::string bytes = test::slurp((dir / "t.perfetto-trace").string());
    for (const Bundle& b : test::read_bundles(bytes)) compact_bundles += b.compact.has_value();
    EXPECT_GT(compact_bundles, 0u);
    EXPECT_EQ(run.switches, conv.switches);
    EXPECT_EQ(run.wakings, conv.wakings);
    EXPECT_TRUE(run.others == conv.others);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace ringscope::perfetto
