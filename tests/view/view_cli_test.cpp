// `ringscope view` as a command: a port in use, a file that does not read, usage errors, and
// `--export` (one HTML file with the data blob, nothing fetched from the network).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "../support/file_text.hpp"
#include "export_blob.hpp"
#include "view_client.hpp"

namespace fs = std::filesystem;

namespace ringscope::test {
namespace {

using json = nlohmann::json;

fs::path temp_file(const std::string& name) {
    return fs::temp_directory_path() / ("ringscope-view-" + std::to_string(::getpid()) + "-" + name);
}

TEST(ViewCli, PortInUseIsAClearError) {
    ViewServer s({"--port", "0", trace_path("basic.dat")});
    ASSERT_NE(s.port(), 0);
    const auto r = run_shell("'" + ringscope_bin() + "' view --port " + std::to_string(s.port()) + " '" +
                             trace_path("basic.dat") + "' 2>&1");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("in use"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("serving"), std::string::npos) << r.out;
    EXPECT_EQ(http_get(s.port(), "/api/meta").status, 200) << "the first server goes on";
}

TEST(ViewCli, AFileThatDoesNotReadStopsBeforeServing) {
    // Cut inside its event data: the file opens, its pages do not all read.
    const std::string data = read_file(trace_path("basic.dat"));
    const fs::path cut = temp_file("cut.dat");
    std::ofstream(cut, std::ios::binary)
        .write(data.data(), static_cast<std::streamsize>(data.size() * 2 / 3));
    const fs::path junk = temp_file("junk.dat");
    std::ofstream(junk) << "not a trace\n";
    for (const fs::path& p : {cut, junk, fs::path("/nonexistent/x.dat")}) {
        const auto r = run_shell("'" + ringscope_bin() + "' view --port 0 '" + p.string() + "' 2>&1");
        EXPECT_EQ(r.status, 1) << p << ": " << r.out;
        EXPECT_EQ(split_lines(r.out).size(), 1u) << r.out;
        EXPECT_NE(r.out.find(p.string()), std::string::npos) << r.out;
        if (p != fs::path("/nonexistent/x.dat")) {
            EXPECT_NE(r.out.find("offset"), std::string::npos) << r.out;
        }
        EXPECT_EQ(r.out.find("serving"), std::string::npos) << r.out;
    }
    fs::remove(cut);
    fs::remove(junk);
}

TEST(ViewCli, UsageErrors) {
    const std::string bin = "'" + ringscope_bin() + "' view ";
    EXPECT_EQ(run_shell(bin + "2>/dev/null").status, 2);
    EXPECT_EQ(run_shell(bin + "--port 70000 '" + trace_path("basic.dat") + "' 2>/dev/null").status, 2);
    EXPECT_EQ(run_shell(bin + "--bind nowhere --port 0 '" + trace_path("basic.dat") + "' 2>/dev/null").status,
              1);
    // --export never writes over an input.
    EXPECT_EQ(run_shell(bin + "--export '" + trace_path("basic.dat") + "' '" + trace_path("basic.dat") +
                        "' 2>/dev/null")
                  .status,
              2);
}

TEST(ViewCli, ExportIsOneOfflineHtmlFile) {
    const fs::path out = temp_file("export.html");
    const auto r = run_shell("'" + ringscope_bin() + "' view --export '" + out.string() + "' '" +
                             trace_path("basic.dat") + "' 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    const std::string html = read_file(out);
    fs::remove(out);
    EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u) << html.substr(0, 80);
    const json blob = export_blob(html);
    ASSERT_TRUE(blob.is_object());
    for (const char* key : {"meta", "cpus", "tasks", "events", "lines_ts"})
        EXPECT_TRUE(blob.contains(key)) << key;
    const ReportLines rl = report_lines(trace_path("basic.dat"));
    EXPECT_EQ(blob["events"].get<std::vector<std::string>>(), rl.lines);
    EXPECT_EQ(blob["events"].size(), blob["lines_ts"].size());
    EXPECT_FALSE(blob["cpus"]["lanes"].empty());
    EXPECT_EQ(html.find("http://"), std::string::npos);
    EXPECT_EQ(html.find("https://"), std::string::npos);
    EXPECT_EQ(html.find(" src=\""), std::string::npos) << "nothing loaded from elsewhere";
}

TEST(ViewCli, ExportKeepsUnderItsCap) {
    // RINGSCOPE_VIEW_EXPORT_CAP lowers the 20 MB cap: the committed traces are far below it.
    const fs::path out = temp_file("export2.html");
    const std::string cmd = "'" + ringscope_bin() + "' view --export '" + out.string() + "' '" +
                            trace_path("full.dat") + "' 2>&1";
    const auto full = run_shell(cmd);
    ASSERT_EQ(full.status, 0) << full.out;
    const auto whole = fs::file_size(out);
    EXPECT_EQ(full.out.find("coarser"), std::string::npos) << full.out;
    const uint64_t cap = whole / 2;
    const auto r = run_shell("RINGSCOPE_VIEW_EXPORT_CAP=" + std::to_string(cap) + " " + cmd);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("coarser"), std::string::npos) << r.out;
    EXPECT_LE(fs::file_size(out), cap);
    fs::remove(out);
}

}  // namespace
}  // namespace ringscope::test
