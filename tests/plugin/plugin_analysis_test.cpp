// An analysis registered by a third-party plugin (the analysis fixture), run by `ringscope run`:
// the YAML is validated against the parameters the plugin declares, and a good run gives its table.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <ringscope/trace.hpp>

namespace fs = std::filesystem;

namespace {

struct CommandResult {
    int exit_code;
    std::string out;
    std::string err;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

class PluginAnalysisTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("ringscope-plugin-analysis-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_ / "plugins");
        fs::copy_file(fs::path(RINGSCOPE_PLUGIN_FIXTURES) / "analysis.so", dir_ / "plugins" / "analysis.so");
    }
    void TearDown() override { fs::remove_all(dir_); }

    CommandResult run(const std::string& args) const {
        fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
        std::string cmd = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope " + args + " >" + out.string() + " 2>" +
                          err.string();
        int status = std::system(cmd.c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
    }
    // A run of test.switches on basic.dat with `params` (a YAML flow mapping).
    fs::path write_run(const std::string& params) const {
        fs::path yaml = dir_ / "run.yaml";
        std::ofstream(yaml) << "inputs: [" << RINGSCOPE_TEST_DATA_DIR << "/traces/basic.dat]\n"
                            << "plugins: {paths: [" << (dir_ / "plugins").string() << "]}\n"
                            << "analyses:\n"
                            << "  test.switches: " << params << "\n"
                            << "outputs: {dir: " << (dir_ / "out").string() << ", json: r.json, text: r.txt}\n";
        return yaml;
    }

    fs::path dir_;
};

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

TEST_F(PluginAnalysisTest, ListedWithThePlugin) {
    CommandResult r = run("-N --plugin-dir " + (dir_ / "plugins").string() + " plugins --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["plugins"].size(), 1u) << r.out;
    EXPECT_EQ(j["plugins"][0]["analyses"], nlohmann::json::array({"test.switches"}));
    CommandResult text = run("-N --plugin-dir " + (dir_ / "plugins").string() + " plugins");
    EXPECT_NE(text.out.find("  analysis  test.switches\n"), std::string::npos) << text.out;
}

TEST_F(PluginAnalysisTest, WrongParameterTypeFailsValidation) {
    fs::path yaml = write_run("{min_cpu: many, colour: red}");
    CommandResult r = run("run --quiet " + yaml.string());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(yaml.string() + ":4:28: test.switches.min_cpu: 'many' is not an integer"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(yaml.string() + ":4:34: analysis 'test.switches' has no parameter 'colour'"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "out" / "r.json"));
}

TEST_F(PluginAnalysisTest, GoodRunGivesItsTable) {
    const std::string trace = std::string(RINGSCOPE_TEST_DATA_DIR) + "/traces/basic.dat";
    fs::path yaml = write_run("{min_cpu: 1, label: hello}");
    CommandResult r = run("run --quiet " + yaml.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto res = nlohmann::json::parse(slurp(dir_ / "out" / "r.json"));
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
    EXPECT_NE(slurp(dir_ / "out" / "r.txt").find("test.switches"), std::string::npos);
}

}  // namespace
