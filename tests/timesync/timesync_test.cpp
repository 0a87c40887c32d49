// Differential: the real host + guest pair of tests/data/kvm-agent, with the guest's TIME_SHIFT samples
// replaced by each edge case, merged by ringscope and by the reference (trace-cmd report and the
// tracecmd_iterate_events(3) example on libtracecmd). Timestamps are printed in ns (-t), so any
// difference in the correction or in the merged order shows.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "framework/io/trace_dat_reader.hpp"
#include "framework/io/trace_dat_writer.hpp"
#include "tests/conformance/process.hpp"
#include "tests/conformance/text_compare.hpp"
#include "timesync_cases.hpp"

namespace fs = std::filesystem;
using namespace ringscope;
using conformance::run_program;

namespace {

const std::string kData = RINGSCOPE_TEST_DATA_DIR;
const std::string kBinary = RINGSCOPE_BINARY_DIR;
const std::string kHost = kData + "/kvm-agent/host.dat";
const std::string kGuest = kData + "/kvm-agent/host-vm2.dat";

// libtraceevent 1.7.1's sched_switch plugin prints stale task-state letters (see the report
// conformance notes); ringscope prints the kernel's. Only that token is masked.
std::string mask_switch_states(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string line(text.substr(pos, end - pos));
        if (line.find("sched_switch:") != std::string::npos) {
            const size_t arrow = line.find(" ==> ");
            const size_t space = arrow == std::string::npos ? std::string::npos : line.rfind(' ', arrow - 1);
            if (space != std::string::npos) line.replace(space + 1, arrow - space - 1, "?");
        }
        out += line;
        out += '\n';
        pos = end + 1;
    }
    return out;
}

class TimeSync : public ::testing::TestWithParam<timesync::TimeSyncCase> {
  protected:
    static void SetUpTestSuite() {
        char tmpl[] = "/tmp/ringscope-timesync.XXXXXX";
        if (char* d = ::mkdtemp(tmpl)) dir_ = d;
    }
    static void TearDownTestSuite() {
        std::error_code ec;
        if (!dir_.empty()) fs::remove_all(dir_, ec);
    }

    // Writes the guest file with the case's samples; "" on failure (the test has failed then).
    std::string write_variant(const timesync::TimeSyncCase& c) {
        auto reader = io::TraceDatReader::open(kGuest);
        EXPECT_TRUE(reader) << (reader ? "" : reader.error().to_string());
        if (!reader) return "";
        const auto& original = reader->options().time_shift;
        EXPECT_TRUE(original.has_value()) << kGuest << " has no TIME_SHIFT option";
        if (!original) return "";
        io::TraceMetadata metadata = reader->metadata();
        metadata.options.time_shift = c.make(*original);
        // The file name is what both tools print in front of every line: keep the original's.
        const std::string path = dir_ + "/" + c.name + "/host-vm2.dat";
        fs::create_directories(dir_ + "/" + c.name);
        auto st = io::write_trace_dat_copy(*reader, path, io::WriterConfig{}, metadata);
        EXPECT_TRUE(st) << (st ? "" : st.error().to_string());
        return st ? path : "";
    }

    static std::string dir_;
};

std::string TimeSync::dir_;

TEST_P(TimeSync, ReportMatchesTraceCmd) {
    const std::string trace_cmd = conformance::find_on_path("trace-cmd");
    if (trace_cmd.empty()) GTEST_SKIP() << "trace-cmd is not installed: no reference to compare with";
    ASSERT_FALSE(dir_.empty());
    const std::string guest = write_variant(GetParam());
    ASSERT_FALSE(guest.empty());
    const std::vector<std::string> args{"report", "-N", "-t", "-i", kHost, "-i", guest};
    const auto want = run_program(trace_cmd, args, dir_, 120);
    ASSERT_EQ(want.exit_code, 0) << want.err;
    const auto got = run_program(kBinary + "/ringscope", args, dir_, 120);
    ASSERT_EQ(got.exit_code, 0) << got.err;
    ASSERT_GT(want.out.size(), 1000u);
    // The case must change the merge, or it tests nothing.
    const auto unchanged =
        run_program(trace_cmd, {"report", "-N", "-t", "-i", kHost, "-i", kGuest}, dir_, 120);
    ASSERT_NE(unchanged.out, want.out) << GetParam().name << " does not change trace-cmd's output";
    const auto cmp = conformance::compare_text(want.out, got.out);
    EXPECT_TRUE(cmp.identical) << cmp.report;
}

TEST_P(TimeSync, IterateExampleMatchesLibtracecmd) {
    const std::string oracle = kBinary + "/tests/oracles/iterate_events";
    if (!fs::exists(oracle))
        GTEST_SKIP() << "libtracecmd-dev is not installed: " << oracle << " was not built";
    ASSERT_FALSE(dir_.empty());
    const std::string guest = write_variant(GetParam());
    ASSERT_FALSE(guest.empty());
    const std::vector<std::string> args{kHost, guest};
    const auto want = run_program(oracle, args, dir_, 120);
    ASSERT_EQ(want.exit_code, 0) << want.err;
    const auto got = run_program(kBinary + "/sdk/examples/iterate_events", args, dir_, 120);
    ASSERT_EQ(got.exit_code, 0) << got.err;
    ASSERT_GT(want.out.size(), 1000u);
    const auto cmp = conformance::compare_text(mask_switch_states(want.out), mask_switch_states(got.out));
    EXPECT_TRUE(cmp.identical) << cmp.report;
}

INSTANTIATE_TEST_SUITE_P(Cases, TimeSync, ::testing::ValuesIn(timesync::timesync_cases()),
                         [](const auto& info) {
                             std::string n = info.param.name;
                             for (char& ch : n)
                                 if (ch == '-') ch = '_';
                             return n;
                         });

}  // namespace
