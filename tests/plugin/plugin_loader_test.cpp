// The loader against real shared objects: each broken case gives its one line and the rest load;
// an analysis a plugin registers is listed and runs under `ringscope run`, its parameters validated.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <ringscope/trace.hpp>

#include "framework/plugin/plugin_host.hpp"
#include "tests/support/file_text.hpp"

namespace fs = std::filesystem;
using ringscope::plugin::PluginHost;
using ringscope::test::read_file;

namespace {

struct CommandResult {
    int exit_code;
    std::string out;
    std::string err;
};

CommandResult run(const std::string& args, const fs::path& tmp) {
    fs::path out = tmp / "stdout.txt", err = tmp / "stderr.txt";
    std::string cmd =
        std::string(RINGSCOPE_BINARY_DIR) + "/ringscope " + args + " >" + out.string() + " 2>" + err.string();
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
}

class PluginLoaderTest : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("ringscope-plugin-test-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_ / "plugins");
        for (const char* name :
             {"good", "not_a_plugin", "abi_mismatch", "throwing", "duplicate_a", "duplicate_b"}) {
            fs::copy_file(fs::path(RINGSCOPE_PLUGIN_FIXTURES) / (std::string(name) + ".so"),
                          dir_ / "plugins" / (std::string(name) + ".so"));
        }
        std::ofstream(dir_ / "plugins" / "garbage.so") << "this is not an ELF file\n";
        // A folder with only the plugin that registers an analysis for `ringscope run`.
        fs::create_directories(dir_ / "analysis");
        fs::copy_file(fs::path(RINGSCOPE_PLUGIN_FIXTURES) / "analysis.so", dir_ / "analysis" / "analysis.so");
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string plugin(const char* name) const { return (dir_ / "plugins" / name).string(); }
    // A run of the analysis fixture's test.switches on basic.dat with `params` (a YAML flow mapping).
    fs::path write_analysis_run(const std::string& params) const {
        fs::path yaml = dir_ / "run.yaml";
        std::ofstream(yaml) << "inputs: [" << RINGSCOPE_TEST_DATA_DIR << "/traces/basic.dat]\n"
                            << "plugins: {paths: [" << (dir_ / "analysis").string() << "]}\n"
                            << "analyses:\n"
                            << "  test.switches: " << params << "\n"
                            << "outputs: {dir: " << (dir_ / "out").string()
                            << ", json: r.json, text: r.txt}\n";
        return yaml;
    }
    fs::path dir_;
};

bool has_line(const std::vector<std::string>& lines, const std::string& file, const std::string& reason) {
    for (const auto& l : lines)
        if (l.find(file) != std::string::npos && l.find(reason) != std::string::npos) return true;
    return false;
}

TEST_F(PluginLoaderTest, EachBrokenPluginGivesOneLineAndTheRestLoad) {
    PluginHost host;
    host.load_dirs({(dir_ / "plugins").string()});

    std::vector<std::string> names;
    for (const auto& p : host.plugins()) names.push_back(p.name);
    EXPECT_EQ(names, (std::vector<std::string>{"test-duplicate", "test-good"}));

    const auto& d = host.diagnostics();
    EXPECT_EQ(d.size(), 5u) << ::testing::PrintToString(d);
    EXPECT_TRUE(has_line(d, plugin("garbage.so"), "not a loadable shared object"));
    EXPECT_TRUE(
        has_line(d, plugin("not_a_plugin.so"), "not a ringscope plugin: no 'ringscope_plugin_entry'"));
    EXPECT_TRUE(has_line(d, plugin("abi_mismatch.so"),
                         "built for SDK ABI " + std::to_string(RINGSCOPE_SDK_ABI + 100)));
    EXPECT_TRUE(has_line(d, plugin("throwing.so"), "failed to initialise: cannot open its configuration"));
    EXPECT_TRUE(has_line(d, plugin("duplicate_b.so"), "a plugin named 'test-duplicate' is already loaded"));
    for (const auto& line : d) EXPECT_EQ(line.find('\n'), std::string::npos) << line;
}

TEST_F(PluginLoaderTest, ThrowingPluginRegistersNothing) {
    PluginHost host;
    EXPECT_FALSE(host.load_file(plugin("throwing.so")));
    EXPECT_TRUE(host.plugins().empty());
    EXPECT_TRUE(host.handlers().empty());
}

TEST_F(PluginLoaderTest, GoodPluginProvidesHandlerAndCommand) {
    PluginHost host;
    ASSERT_TRUE(host.load_file(plugin("good.so")));
    ASSERT_EQ(host.plugins().size(), 1u);
    const auto& p = host.plugins()[0];
    EXPECT_EQ(p.version, "1.2.3");
    EXPECT_EQ(p.handlers, std::vector<std::string>{"test-counter"});
    ASSERT_NE(host.find_command("test-hello"), nullptr);
    ASSERT_EQ(host.handlers().size(), 1u);
    auto handler = host.handlers()[0].factory();
    EXPECT_EQ(handler->name(), "test-counter");
}

TEST_F(PluginLoaderTest, CliListsPluginsAndReportsBrokenOnesOnStderr) {
    CommandResult r = run("--plugin-dir " + (dir_ / "plugins").string() + " plugins", dir_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("test-good 1.2.3"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("handler   test-counter: sched/sched_switch"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("annotator test-wakeups: sched/sched_wakeup sched/sched_waking"), std::string::npos)
        << r.out;
    EXPECT_NE(r.err.find("ringscope: plugin " + plugin("abi_mismatch.so") + ": built for SDK ABI"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(plugin("garbage.so")), std::string::npos) << r.err;
}

TEST_F(PluginLoaderTest, CliJsonListing) {
    CommandResult r = run("--plugin-dir " + (dir_ / "plugins").string() + " plugins --json", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    bool found = false;
    for (const auto& p : j["plugins"]) {
        if (p["name"] == "test-good") {
            found = true;
            EXPECT_EQ(p["commands"], nlohmann::json::array({"test-hello"}));
            EXPECT_EQ(p["handlers"][0]["events"], nlohmann::json::array({"sched/sched_switch"}));
            ASSERT_EQ(p["annotators"].size(), 1u) << p.dump();
            EXPECT_EQ(p["annotators"][0]["name"], "test-wakeups");
            EXPECT_EQ(p["annotators"][0]["events"],
                      nlohmann::json::array({"sched/sched_wakeup", "sched/sched_waking"}));
        }
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(j["errors"].size(), 5u);
}

// A plugin's report option: parsed in both spellings, annotates its events' lines, prints a summary,
// works with report's -N (as trace-cmd's -w does), and its factory's refusal is a usage error.
TEST_F(PluginLoaderTest, ReportOptionAnnotatesLinesAndPrintsASummary) {
    const std::string trace = std::string(RINGSCOPE_TEST_DATA_DIR) + "/traces/basic.dat";
    const std::string dir = "--plugin-dir " + (dir_ / "plugins").string();
    CommandResult plain = run(dir + " report " + trace, dir_);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    size_t switches = 0;
    std::istringstream lines(plain.out);
    for (std::string line; std::getline(lines, line);)
        switches += line.find(" sched_switch: ") != std::string::npos;
    ASSERT_GT(switches, 0u);

    for (const std::string option : {"--test-mark=hi", "--test-m hi", "-Zhi", "-Z hi"}) {
        CommandResult r = run(dir + " report " + option + " " + trace, dir_);
        ASSERT_EQ(r.exit_code, 0) << option << ": " << r.err;
        std::string expected;
        std::istringstream in(plain.out);
        for (std::string line; std::getline(in, line);)
            expected += line + (line.find(" sched_switch: ") != std::string::npos ? " [hi]\n" : "\n");
        expected += "hi: " + std::to_string(switches) + " sched_switch events\n";
        EXPECT_EQ(r.out, expected) << option;
    }
    CommandResult no_plugins = run(dir + " report -N -Z hi " + trace, dir_);
    EXPECT_EQ(no_plugins.exit_code, 0) << no_plugins.err;
    EXPECT_NE(no_plugins.out.find("prev_state=S ==> next_comm="), std::string::npos);
    EXPECT_NE(no_plugins.out.find(" [hi]\n"), std::string::npos);

    CommandResult refused = run(dir + " report --test-mark= " + trace, dir_);
    EXPECT_EQ(refused.exit_code, 255);  // report's usage errors exit as trace-cmd's do
    EXPECT_NE(refused.err.find("-Z/--test-mark: needs a label"), std::string::npos) << refused.err;
    CommandResult json = run(dir + " report --format json -Z hi " + trace, dir_);
    EXPECT_EQ(json.exit_code, 255);
    EXPECT_NE(json.err.find("does not go with --format"), std::string::npos) << json.err;
    CommandResult listing = run(dir + " plugins", dir_);
    EXPECT_NE(listing.out.find("report    -Z/--test-mark"), std::string::npos) << listing.out;
    CommandResult help = run(dir + " report --help", dir_);
    EXPECT_NE(help.out.find("-Z/--test-mark"), std::string::npos) << help.out;
}

TEST_F(PluginLoaderTest, CliRunsPluginCommand) {
    CommandResult r = run("--plugin-dir " + (dir_ / "plugins").string() + " test-hello a b", dir_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "hello 2\n");
}

TEST_F(PluginLoaderTest, NoPluginsLoadsNothing) {
    CommandResult r = run("-N --plugin-dir " + (dir_ / "plugins").string() + " plugins", dir_);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "no plugins loaded\n");
    EXPECT_EQ(r.err, "");
}

TEST_F(PluginLoaderTest, UsageErrorsExitTwo) {
    EXPECT_EQ(run("no-such-command", dir_).exit_code, 2);
    EXPECT_EQ(run("--no-such-option", dir_).exit_code, 2);
    EXPECT_EQ(run("plugins --bogus", dir_).exit_code, 2);
    CommandResult missing = run("--plugin-dir", dir_);
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("--plugin-dir"), std::string::npos);
}

TEST_F(PluginLoaderTest, BuildTreePluginsAreFoundRelativeToTheExecutable) {
    CommandResult r = run("plugins --json", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    for (const auto& p : j["plugins"]) {
        std::string path = p["path"];
        EXPECT_EQ(path.rfind(std::string(RINGSCOPE_BINARY_DIR) + "/plugins/", 0), 0u) << path;
    }
}

// sched_switch events per CPU through the SDK's own iteration.
std::map<int, uint64_t> switches_per_cpu(const std::string& path) {
    std::map<int, uint64_t> n;
    ringscope::TraceOpenOptions o;
    o.load_plugins = false;
    auto t = ringscope::Trace::open(path, o);
    EXPECT_TRUE(t) << path;
    if (!t) return n;
    for (const auto& ev : t->events())
        if (ev.system() == "sched" && ev.name() == "sched_switch") ++n[ev.cpu()];
    return n;
}

TEST_F(PluginLoaderTest, AnalysisListedWithThePlugin) {
    CommandResult r = run("--plugin-dir " + (dir_ / "analysis").string() + " plugins --json", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    size_t found = 0;
    for (const auto& p : j["plugins"]) {
        if (p["name"] != "test-analysis") continue;
        ++found;
        EXPECT_EQ(p["analyses"], nlohmann::json::array({"test.switches"}));
    }
    EXPECT_EQ(found, 1u) << r.out;
    CommandResult text = run("--plugin-dir " + (dir_ / "analysis").string() + " plugins", dir_);
    EXPECT_NE(text.out.find("  analysis  test.switches\n"), std::string::npos) << text.out;
}

TEST_F(PluginLoaderTest, AnalysisWrongParameterTypeFailsValidation) {
    fs::path yaml = write_analysis_run("{min_cpu: many, colour: red}");
    CommandResult r = run("run --quiet " + yaml.string(), dir_);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(yaml.string() + ":4:28: test.switches.min_cpu: 'many' is not an integer"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(yaml.string() + ":4:34: analysis 'test.switches' has no parameter 'colour'"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "out" / "r.json"));
}

TEST_F(PluginLoaderTest, AnalysisGoodRunGivesItsTable) {
    const std::string trace = std::string(RINGSCOPE_TEST_DATA_DIR) + "/traces/basic.dat";
    fs::path yaml = write_analysis_run("{min_cpu: 1, label: hello}");
    CommandResult r = run("run --quiet " + yaml.string(), dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto res = nlohmann::json::parse(read_file(dir_ / "out" / "r.json"));
    const auto& rows = res["analyses"]["test.switches"]["test.switches"];
    std::map<int, uint64_t> want = switches_per_cpu(trace);
    std::erase_if(want, [](const auto& kv) { return kv.first < 1; });
    ASSERT_FALSE(want.empty());
    std::map<int, uint64_t> got;
    for (const auto& row : rows) {
        EXPECT_EQ(row["label"], "hello");
        got[row["cpu"].get<int>()] = row["switches"].get<uint64_t>();
    }
    EXPECT_EQ(got, want) << rows.dump();
    EXPECT_NE(read_file(dir_ / "out" / "r.txt").find("test.switches"), std::string::npos);
}

}  // namespace
