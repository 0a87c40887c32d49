// /api/events keeps the files report opened for its first query (framework/cli/report_session.hpp):
// once a query has run, later ones (other ranges, a -F filter) answer report's lines even after the
// file is gone from its folder, and queries sent at once from several connections each get the
// lines of their own range.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "view_client.hpp"

namespace fs = std::filesystem;

namespace ringscope::test {
namespace {

using json = nlohmann::json;

std::string secs(uint64_t ns) {
    return std::to_string(ns / 1000000000) + "." + std::to_string(1000000000 + ns % 1000000000).substr(1);
}

// report's lines (no "cpus=N") of FILE for [A, B] with EXTRA options.
std::vector<std::string> report_range(const std::string& file, uint64_t a, uint64_t b,
                                      const std::string& extra = "") {
    auto lines = split_lines(run_shell("'" + ringscope_bin() + "' report " + extra + " --from " + secs(a) +
                                       " --to " + secs(b) + " '" + file + "' 2>/dev/null")
                                 .out);
    if (!lines.empty()) lines.erase(lines.begin());
    return lines;
}

std::string events_target(uint64_t a, uint64_t b, const std::string& filter = "") {
    return "/api/events?from=" + std::to_string(a) + "&to=" + std::to_string(b) + "&limit=100000" +
           (filter.empty() ? "" : "&filter=" + filter);
}

std::vector<std::string> lines_of(const HttpAnswer& a) {
    const json j = json::parse(a.body, nullptr, false);
    if (!j.is_object() || !j.contains("lines")) return {"not an answer: " + a.body};
    return j["lines"].get<std::vector<std::string>>();
}

TEST(ViewSession, LaterQueriesUseTheFilesTheFirstOpened) {
    const std::string original = trace_path("basic.dat");
    const ReportLines r = report_lines(original);
    ASSERT_GT(r.lines.size(), 100u);
    const fs::path copy =
        fs::temp_directory_path() / ("ringscope-view-kept-" + std::to_string(getpid()) + ".dat");
    fs::copy_file(original, copy, fs::copy_options::overwrite_existing);
    ViewServer s({"--port", "0", copy.string()});
    ASSERT_NE(s.port(), 0) << s.first_line();
    const uint64_t first = r.ts.front(), span = r.ts.back() - r.ts.front();
    const HttpAnswer one = http_get(s.port(), events_target(first, first + span / 4));
    EXPECT_EQ(one.status, 200) << one.body;
    EXPECT_EQ(lines_of(one), report_range(original, first, first + span / 4));
    // Reopening it for the next query would fail now (a 500 naming the file).
    fs::remove(copy);
    const uint64_t a = first + span / 2, b = first + 3 * span / 4;
    const HttpAnswer two = http_get(s.port(), events_target(a, b));
    EXPECT_EQ(two.status, 200) << two.body;
    const auto want = report_range(original, a, b);
    ASSERT_GT(want.size(), 10u);
    EXPECT_EQ(lines_of(two), want);
    const HttpAnswer filtered = http_get(s.port(), events_target(first, b, "sched_switch"));
    EXPECT_EQ(filtered.status, 200) << filtered.body;
    const auto switches = report_range(original, first, b, "-F sched_switch");
    ASSERT_GT(switches.size(), 5u);
    EXPECT_EQ(lines_of(filtered), switches);
    EXPECT_EQ(s.stop(), 0);
}

TEST(ViewSession, QueriesAtOnceGetTheirOwnRanges) {
    const std::string file = trace_path("full.dat");
    const ReportLines r = report_lines(file);
    ASSERT_GT(r.lines.size(), 1000u);
    ViewServer s({"--port", "0", file});
    ASSERT_NE(s.port(), 0) << s.first_line();
    constexpr size_t kQueries = 8;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    std::vector<std::vector<std::string>> want;
    for (size_t i = 0; i < kQueries; ++i) {
        const size_t at = (i + 1) * r.lines.size() / (kQueries + 2);
        ranges.emplace_back(r.ts[at], r.ts[at + 40]);
        want.push_back(
            report_range(file, ranges.back().first, ranges.back().second, i % 2 ? "-F sched_switch" : ""));
    }
    std::vector<std::vector<std::string>> got(kQueries);
    std::vector<std::thread> clients;
    for (size_t i = 0; i < kQueries; ++i)
        clients.emplace_back([&, i] {
            got[i] = lines_of(http_get(
                s.port(), events_target(ranges[i].first, ranges[i].second, i % 2 ? "sched_switch" : "")));
        });
    for (auto& c : clients) c.join();
    for (size_t i = 0; i < kQueries; ++i) EXPECT_EQ(got[i], want[i]) << "query " << i;
    EXPECT_EQ(s.stop(), 0);
}

}  // namespace
}  // namespace ringscope::test
