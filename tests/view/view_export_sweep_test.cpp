// `ringscope convert` and `ringscope view --export` on every committed trace of tests/data/traces,
// on a host + guest pair, and on every trace of ../shared/conformance/external-traces (skipped
// without ../shared): both exit 0; convert's output decodes and holds, per event name, as many
// events as `report -N` prints; the export is one HTML page under the 20 MB cap whose data blob
// parses and holds the trace (report's first 50000 lines, their times, the lanes), and stderr
// names the level of detail when the cap made it coarser. Each file is converted, exported and
// reported once (about 9 s for the three tests in the RelWithDebInfo build).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "../support/file_text.hpp"
#include "export_blob.hpp"
#include "framework/perfetto/ftrace_schema.hpp"
#include "framework/view/view_export.hpp"
#include "tests/perfetto/bundle_reader.hpp"
#include "view_client.hpp"

namespace fs = std::filesystem;

namespace ringscope::test {
namespace {

using json = nlohmann::json;
namespace field = perfetto::field;

fs::path scratch(const std::string& name) {
    return fs::temp_directory_path() / ("ringscope-sweep-" + std::to_string(::getpid()) + "-" + name);
}

std::string quoted(const std::vector<std::string>& files) {
    std::string s;
    for (const auto& f : files) s += " '" + f + "'";
    return s;
}

// Events per name as `report -N` prints them (bprint is Perfetto's print, as convert writes it).
std::map<std::string, uint64_t> report_counts(const std::vector<std::string>& files) {
    std::string inputs;
    for (const auto& f : files) inputs += " -i '" + f + "'";
    const auto r = run_shell("'" + ringscope_bin() + "' report -N" + inputs + " 2>/dev/null");
    EXPECT_EQ(r.status, 0);
    static const std::regex line(R"(\[(\d+)\]\s+\d+(\.\d+)?: ([^ :]+):)");
    std::map<std::string, uint64_t> counts;
    std::istringstream in(r.out);
    std::string s;
    std::smatch m;
    while (std::getline(in, s))
        if (s.rfind("CPU:", 0) != 0 && std::regex_search(s, m, line))
            ++counts[m[3] == "bprint" ? "print" : std::string(m[3])];
    return counts;
}

// Events per name in a Perfetto trace: typed ones by their FtraceEvent field, generic by name.
std::map<std::string, uint64_t> decoded_counts(const std::string& trace) {
    std::map<uint32_t, std::string> typed;
    for (const auto& t : perfetto::typed_events()) typed[t.oneof_field] = std::string(t.name);
    std::map<std::string, uint64_t> counts;
    for (const Bundle& b : read_bundles(trace)) {
        EXPECT_FALSE(b.compact) << "no CompactSched by default";
        for (std::string_view ev : b.events) {
            for (const ProtoField& f : read_message(ev)) {
                if (f.number == field::kEventGeneric) {
                    auto name = find_field(read_message(f.bytes), field::kGenericEventName);
                    ++counts[name ? std::string(name->bytes) : "?"];
                } else if (auto it = typed.find(f.number); it != typed.end()) {
                    ++counts[it->second];
                }
            }
        }
    }
    return counts;
}

void check_convert(const std::vector<std::string>& files) {
    const fs::path out = scratch("t.perfetto-trace");
    const auto r =
        run_shell("'" + ringscope_bin() + "' convert -q" + quoted(files) + " -o '" + out.string() + "' 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    std::map<std::string, uint64_t> got;
    try {
        got = decoded_counts(read_file(out));
    } catch (const std::exception& e) {
        ADD_FAILURE() << "the output does not decode: " << e.what();
    }
    fs::remove(out);
    EXPECT_EQ(got, report_counts(files));
}

void check_export(const std::vector<std::string>& files) {
    const fs::path out = scratch("t.html");
    const auto r =
        run_shell("'" + ringscope_bin() + "' view --export '" + out.string() + "'" + quoted(files) + " 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    const std::string html = read_file(out);
    fs::remove(out);
    EXPECT_LE(html.size(), view::kExportCap);
    EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u) << html.substr(0, 80);
    EXPECT_NE(html.find("</html>"), std::string::npos);
    const json blob = export_blob(html);
    ASSERT_TRUE(blob.is_object()) << "the data blob parses";
    const auto& events = blob["events"];
    ASSERT_TRUE(events.is_array());
    EXPECT_EQ(events.size(), blob["lines_ts"].size());
    EXPECT_EQ(blob["meta"]["files"].size(), files.size());
    const auto total = blob["events_total"].get<uint64_t>();
    uint64_t counted = 0;
    for (const auto& e : blob["meta"]["events"]) counted += e["count"].get<uint64_t>();
    EXPECT_EQ(counted > 0, total > 0) << "the events' counts and report's lines";
    EXPECT_TRUE(blob["cpus"]["lanes"].is_array());
    EXPECT_TRUE(blob["tasks"]["lanes"].is_array());
    // sched_switch events, in the top buffer or an instance, give some CPU lane its slices.
    uint64_t switches = 0, sliced = 0;
    for (const auto& e : blob["meta"]["events"])
        if (e["name"] == "sched:sched_switch") switches += e["count"].get<uint64_t>();
    for (const auto& lane : blob["cpus"]["lanes"]) sliced += !lane["slices"].empty();
    EXPECT_EQ(switches > 0, sliced > 0)
        << switches << " sched_switch events, " << sliced << " lanes with slices";
    // The first 50000 of report's lines (README.md); fewer, or coarser lanes, only with the note.
    const bool noted = r.out.find("kept under") != std::string::npos;
    if (!noted) {
        EXPECT_EQ(events.size(), std::min<uint64_t>(total, 50000));
    }
    if (noted) {
        EXPECT_NE(r.out.find(" pixels, "), std::string::npos) << "names the level of detail: " << r.out;
    }
}

void sweep(const std::vector<std::string>& files) {
    SCOPED_TRACE(files.front());
    check_convert(files);
    check_export(files);
}

std::vector<std::string> dat_files(const fs::path& dir) {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".dat") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

TEST(ViewExportSweep, CommittedTraces) {
    const auto files = dat_files(fs::path(RINGSCOPE_TEST_DATA_DIR) / "traces");
    ASSERT_GE(files.size(), 8u);
    for (const auto& f : files) sweep({f});
}

TEST(ViewExportSweep, HostAndGuest) {
    const std::string dir = std::string(RINGSCOPE_TEST_DATA_DIR) + "/kvm-agent/";
    sweep({dir + "host.dat", dir + "host-vm2.dat"});
}

TEST(ViewExportSweep, ExternalTraces) {
    const fs::path dir = fs::path(RINGSCOPE_SHARED_DIR) / "conformance" / "external-traces";
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent";
    const auto files = dat_files(dir);
    ASSERT_FALSE(files.empty());
    for (const auto& f : files) sweep({f});
}

}  // namespace
}  // namespace ringscope::test
