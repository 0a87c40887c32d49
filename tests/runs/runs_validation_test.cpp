// `ringscope run` refusing what it cannot run: validation errors (all at once, at their line,
// before any work) and a run that fails midway leaving no output.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.hpp"

namespace fs = std::filesystem;

namespace {

using namespace ringscope::test;

}  // namespace

// A plugin may refuse parameters of the right type (kvm.exits top 0): a validation error, before any work.
TEST(Runs, RefusedParametersAreValidationErrors) {
    std::string out = tmpdir("refused");
    Cmd r = run_config("kvm-exits.yaml", out, "--set analyses.kvm.exits.top=0");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("kvm.exits: the plugin 'kvm' refused the parameters (top=0)"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("1 error, nothing was run"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out + "/results.json"));
}

TEST(Runs, EveryValidationErrorAtOnce) {
    std::string out = tmpdir("bad");
    std::string yaml = data("runs/bad.yaml");
    Cmd r = sh("cd '" + out + "' && '" + cli_path() + "' run '" + yaml + "'");
    EXPECT_EQ(r.code, 2);
    auto has = [&](const std::string& s) {
        EXPECT_NE(r.err.find(s), std::string::npos) << "missing: " << s << "\n" << r.err;
    };
    has(yaml + ":2:8: title must be a scalar");
    has(yaml + ":5:5: input '");
    has(yaml + ":7:17: unknown plugin 'no-such-plugin'");
    has(yaml + ":9:6: bad filter");
    has(yaml + ":11:24: sched.latency.top: 'many' is not an integer");
    has(yaml + ":12:19: analysis 'sched.runtime' has no parameter 'window'");
    has(yaml + ":13:3: unknown analysis 'no.such.analysis'");
    has(yaml + ":16:3: unknown key 'pdf' in outputs");
    has(yaml + ":17:1: unknown key 'colour' in the run");
    has("9 errors, nothing was run");
    EXPECT_TRUE(fs::is_empty(out));  // nothing written

    std::string broken = out + "/broken.yaml";
    std::ofstream(broken) << "inputs: [a\nanalyses: {\n";
    Cmd y = sh("'" + cli_path() + "' run '" + broken + "'");
    EXPECT_EQ(y.code, 2);
    EXPECT_NE(y.err.find(broken + ":"), std::string::npos) << y.err;
}

// The event pass reads trace.dat files and what a loaded plugin's decoder claims (an Intel PT
// stream: tests/ipt); an input neither is caught before any work, at its line, and so are plugin
// options on a trace.dat input. Nothing is written.
TEST(Runs, AnInputNoDecoderReadsIsAValidationError) {
    std::string out = tmpdir("pt-events");
    std::string text = out + "/notes.txt";
    std::ofstream(text) << "not a trace\n";
    std::string yaml = out + "/mixed.yaml";
    std::ofstream(yaml) << "inputs:\n  - " << text << "\n  - path: " << data("traces/basic.dat")
                        << "\n    options: {ipt: {flow: calls}}\nplugins:\n  load: [ipt, sched]\nanalyses:\n"
                           "  sched.latency: {}\noutputs:\n  dir: out\n  json: results.json\n";
    Cmd r = sh("'" + cli_path() + "' run '" + yaml + "'");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(yaml + ":2:5: input '" + text + "' is neither a trace.dat file nor an input"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(yaml + ":4:21: options are for inputs a plugin decoder reads"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("2 errors, nothing was run"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out + "/out"));
}

TEST(Runs, AFailedRunLeavesNoOutput) {
    // An input that passes validation (it exists) but is cut short: the run fails after the
    // outputs' temporaries were opened, and none of them may remain.
    std::string out = tmpdir("fail");
    std::string cut = out + "/cut.dat";
    std::string whole = read_file(data("traces/basic.dat"));
    std::ofstream(cut, std::ios::binary) << whole.substr(0, 4096);
    std::string yaml = out + "/run.yaml";
    std::ofstream(yaml) << "inputs: [cut.dat]\nanalyses: {sched.runtime: {}}\noutputs: {dir: " << out
                        << "/o, json: r.json, sqlite: t.sqlite, perfetto: t.json, html: r.html}\n";
    Cmd r = sh("'" + cli_path() + "' run --quiet '" + yaml + "'");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("cut.dat"), std::string::npos) << r.err;
    size_t files = 0;
    if (fs::exists(out + "/o"))
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(out + "/o")) ++files;
    EXPECT_EQ(files, 0u);
}
