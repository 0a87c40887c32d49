// The trace clock in `ringscope convert`'s bundles: ftrace_clock as traced_probes writes it
// (local and perf: LOCAL, global: GLOBAL, mono_raw: MONO_RAW, boot and the clocks trace processor
// has no value for: unset) and, with a clock set, the (ftrace, boot) time pair trace processor
// maps it with: the identity, never going back within a stream nor repeating the previous
// bundle's (trace processor would skip it), one pair per machine for mono_raw. Committed traces,
// copies of basic.dat with other clocks, and ../shared's external traces when present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "framework/engine/trace_set.hpp"
#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "tests/perfetto/bundle_reader.hpp"
#include "tests/support/shell_command.hpp"

namespace fs = std::filesystem;

namespace ringscope::perfetto {
namespace {

using test::Bundle;

const std::string kBin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";

std::string data(const std::string& rel) {
    return std::string(RINGSCOPE_TEST_DATA_DIR) + "/" + rel;
}

fs::path scratch() {
    fs::path d = fs::temp_directory_path() / ("ringscope-perfetto-clock-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
}

std::vector<Bundle> convert(const std::string& files, std::string& keep) {
    const std::string out = (scratch() / "t.perfetto-trace").string();
    auto r = test::run_shell("'" + kBin + "' convert -q '" + files + "' -o '" + out + "' 2>&1");
    EXPECT_EQ(r.status, 0) << r.out;
    keep = test::slurp(out);
    return test::read_bundles(keep);
}

uint64_t event_ts(std::string_view ev) {
    return test::find_field(test::read_message(ev), field::kEventTimestamp).value().value;
}

// Checks the bundles' clock fields for clock CLOCK (0: none); returns the events' times, sorted.
std::vector<uint64_t> check_clock(const std::string& file, uint32_t clock) {
    SCOPED_TRACE(file);
    std::string bytes;
    const std::vector<Bundle> bundles = convert(file, bytes);
    std::vector<uint64_t> times;
    for (const Bundle& b : bundles)
        for (auto ev : b.events) times.push_back(event_ts(ev));
    std::sort(times.begin(), times.end());
    std::map<uint64_t, uint64_t> last_pair;  // sequence -> its last ftrace_timestamp
    std::optional<uint64_t> previous;        // the previous pair, in file order
    for (const Bundle& b : bundles) {
        EXPECT_EQ(b.clock.value_or(0), clock);
        EXPECT_EQ(b.clock.has_value(), clock != 0) << "unset means boot";
        if (!clock || b.events.empty()) {
            EXPECT_FALSE(b.ftrace_ts || b.boot_ts);
            continue;
        }
        if (!b.ftrace_ts || !b.boot_ts) {
            ADD_FAILURE() << "a bundle with a clock and events has no time pair";
            continue;
        }
        EXPECT_EQ(*b.ftrace_ts, *b.boot_ts) << "trace.dat has no boot time: the identity";
        uint64_t first = ~uint64_t{0};
        for (auto ev : b.events) first = std::min(first, event_ts(ev));
        if (clock == field::kFtraceClockMonoRaw) {
            EXPECT_EQ(*b.ftrace_ts, times.front()) << "one pair: the first event's time";
        } else {
            EXPECT_GE(*b.ftrace_ts, first);
            auto [it, added] = last_pair.try_emplace(b.sequence, *b.ftrace_ts);
            if (!added) {
                EXPECT_GE(*b.ftrace_ts, it->second) << "a stream's pairs never go back";
            }
            it->second = *b.ftrace_ts;
            if (previous) {
                EXPECT_NE(*b.ftrace_ts, *previous) << "trace processor skips a repeated pair";
            }
        }
        previous = b.ftrace_ts;
    }
    return times;
}

// A copy of SOURCE as version 6 (where the clock text follows the CPU table) whose clock
// is CLOCK.
std::string with_clock(const std::string& clock, const std::string& source = "traces/basic.dat") {
    auto src = io::TraceDatReader::open(data(source));
    EXPECT_TRUE(src);
    io::TraceMetadata meta = src->metadata();
    std::string text;
    for (const char* c :
         {"local", "global", "counter", "uptime", "perf", "mono", "mono_raw", "boot", "x86-tsc"})
        text += (text.empty() ? "" : " ") + (c == clock ? "[" + clock + "]" : std::string(c));
    meta.options.trace_clock = text + "\n";
    meta.flyrecord_clock = text + "\n";
    const std::string out = (scratch() / (fs::path(source).stem().string() + "-" + clock + ".dat")).string();
    io::WriterConfig cfg;
    cfg.file_version = 6;
    EXPECT_TRUE(io::write_trace_dat_copy(*src, out, cfg, meta));
    engine::TraceSet set;
    EXPECT_TRUE(set.add_file(out, engine::OpenOptions{}));
    EXPECT_EQ(set.file(0).trace_clock(), clock) << "the copy reads with its new clock";
    return out;
}

TEST(PerfettoClock, CommittedTraces) {
    // basic.dat: recorded with the local clock; host.dat: x86-tsc (Perfetto has no TSC value).
    EXPECT_FALSE(check_clock(data("traces/basic.dat"), field::kFtraceClockLocal).empty());
    EXPECT_FALSE(check_clock(data("traces/dropped.dat"), field::kFtraceClockLocal).empty());
    EXPECT_FALSE(check_clock(data("kvm-agent/host.dat"), field::kFtraceClockUnspecified).empty());
}

TEST(PerfettoClock, EachClockAsTracedProbesWritesIt) {
    const auto base = check_clock(data("traces/basic.dat"), field::kFtraceClockLocal);
    const std::pair<const char*, uint32_t> cases[] = {
        {"local", field::kFtraceClockLocal},         {"perf", field::kFtraceClockLocal},
        {"global", field::kFtraceClockGlobal},       {"mono_raw", field::kFtraceClockMonoRaw},
        {"boot", field::kFtraceClockUnspecified},    {"mono", field::kFtraceClockUnspecified},
        {"counter", field::kFtraceClockUnspecified}, {"x86-tsc", field::kFtraceClockUnspecified},
    };
    for (const auto& [clock, want] : cases) {
        SCOPED_TRACE(clock);
        // Naming the clock never moves an event: the times stay report's.
        EXPECT_EQ(check_clock(with_clock(clock), want), base);
    }
    fs::remove_all(scratch());
}

// A host + guest pair: the guest's times are on the host's time line (its TIME_SHIFT, as report
// merges them), so its machine's bundles name the host's clock, whatever the guest recorded with.
// kvm-agent/host.dat records x86-tsc (no Perfetto value): a copy of it on the local clock.
TEST(PerfettoClock, GuestBundlesNameTheHostsClock) {
    const std::string guest = data("kvm-agent/host-vm2.dat");
    engine::TraceSet set;
    ASSERT_TRUE(set.add_file(guest, engine::OpenOptions{}));
    ASSERT_TRUE(set.file(0).clock().has_time_shift()) << "the guest file carries TIME_SHIFT";
    ASSERT_NE(set.file(0).trace_clock(), "local");
    for (const auto& [clock, want] :
         {std::pair{"local", field::kFtraceClockLocal}, std::pair{"global", field::kFtraceClockGlobal},
          std::pair{"mono_raw", field::kFtraceClockMonoRaw}}) {
        SCOPED_TRACE(clock);
        std::string bytes;
        const auto bundles = convert(with_clock(clock, "kvm-agent/host.dat") + "' '" + guest, bytes);
        std::map<uint32_t, size_t> seen;  // machine -> bundles with events
        std::map<uint32_t, uint64_t> first_pair;
        for (const Bundle& b : bundles) {
            if (b.events.empty()) continue;
            ++seen[b.machine];
            EXPECT_EQ(b.clock.value_or(0), want) << "machine " << b.machine;
            EXPECT_TRUE(b.ftrace_ts && b.boot_ts && *b.ftrace_ts == *b.boot_ts) << "the identity pair";
            if (want == field::kFtraceClockMonoRaw && b.ftrace_ts) {
                auto [it, added] = first_pair.try_emplace(b.machine, *b.ftrace_ts);
                EXPECT_EQ(*b.ftrace_ts, it->second) << "one mono_raw pair per machine";
            }
        }
        EXPECT_GT(seen[0], 0u);
        EXPECT_GT(seen[1], 0u) << "the guest is machine 1";
    }
    // The guest alone is no guest: its own clock.
    std::string bytes;
    for (const Bundle& b : convert(guest, bytes)) EXPECT_FALSE(b.clock.has_value());
    fs::remove_all(scratch());
}

TEST(PerfettoClock, ExternalTraces) {
    const fs::path dir = fs::path(RINGSCOPE_SHARED_DIR) / "conformance" / "external-traces";
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent";
    std::map<std::string, size_t> seen;  // clock -> files
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() != ".dat") continue;
        engine::TraceSet set;
        ASSERT_TRUE(set.add_file(e.path().string(), engine::OpenOptions{}));
        const engine::TraceFile& f = set.file(0);
        const std::string& c = f.trace_clock();
        ++seen[c];
        const uint32_t want = !f.in_usecs()                 ? field::kFtraceClockUnspecified
                              : c == "local" || c == "perf" ? field::kFtraceClockLocal
                                                            : field::kFtraceClockUnspecified;
        check_clock(e.path().string(), want);
    }
    // The corpus has local, perf (langraph_stack_zstd.dat) and files that name no clock.
    for (const auto& [c, n] : seen) std::printf("clock '%s': %zu files\n", c.c_str(), n);
    EXPECT_GT(seen["local"], 0u);
    EXPECT_GT(seen["perf"], 0u);
    fs::remove_all(scratch());
}

}  // namespace
}  // namespace ringscope::perfetto
