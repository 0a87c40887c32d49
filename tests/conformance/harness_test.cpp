// Tests of the conformance harness itself (manifest parsing, process runner, comparison, xz).
#include <gtest/gtest.h>
#include <lzma.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "manifest.hpp"
#include "process.hpp"
#include "text_compare.hpp"

namespace ringscope::conformance {
namespace {

TEST(SplitArgs, WordsAndQuotes) {
    std::vector<std::string> w;
    std::string err;
    ASSERT_TRUE(split_args("-F 'COMM == \"dd\"' --cpu 0-1  traces/basic.dat", w, err)) << err;
    EXPECT_EQ(w, (std::vector<std::string>{"-F", "COMM == \"dd\"", "--cpu", "0-1", "traces/basic.dat"}));
    ASSERT_TRUE(split_args("''", w, err));
    EXPECT_EQ(w, (std::vector<std::string>{""}));
    ASSERT_TRUE(split_args("", w, err));
    EXPECT_TRUE(w.empty());
}

TEST(SplitArgs, ErrorsNameTheColumn) {
    std::vector<std::string> w;
    std::string err;
    EXPECT_FALSE(split_args("-F 'open", w, err));
    EXPECT_EQ(err, "column 4: unterminated single quote");
    EXPECT_FALSE(split_args("'a'b", w, err));
    EXPECT_EQ(err, "column 4: text right after a closing quote");
    EXPECT_FALSE(split_args("ab'c", w, err));
    EXPECT_EQ(err, "column 3: quote inside a word");
}

TEST(Manifest, ParsesBothLayoutsAndReportsBadLines) {
    auto dir = std::filesystem::temp_directory_path() / ("ringscope-harness-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    auto write = [&](const char* name, const char* text) {
        FILE* f = std::fopen((dir / name).c_str(), "w");
        std::fputs(text, f);
        std::fclose(f);
        return (dir / name).string();
    };
    auto raw = write("raw.tsv", "# c\tfile\na\ttraces/oracle/a.out\n");
    auto cases = load_cases(write("cases.tsv",
                                  "# header\na\t-t 'x y'\ttraces/expected/a.out.xz\t22\n"
                                  "bad\tonly two\n"
                                  "b\t-R\tb.out\tnope\n"),
                            false, raw);
    ASSERT_EQ(cases.size(), 3u);
    EXPECT_EQ(cases[0].name, "a");
    EXPECT_EQ(cases[0].args, (std::vector<std::string>{"-t", "x y"}));
    EXPECT_EQ(cases[0].expected, "traces/expected/a.out.xz");
    EXPECT_EQ(cases[0].exit_code, 22);
    EXPECT_EQ(cases[0].raw, "traces/oracle/a.out");
    EXPECT_TRUE(cases[0].error.empty());
    EXPECT_NE(cases[1].error.find("cases.tsv:3: expected 4 tab-separated fields, got 2"), std::string::npos);
    EXPECT_NE(cases[2].error.find("bad exit code 'nope'"), std::string::npos);

    auto ex = load_cases(write("ex.tsv", "e1\titerate_events\t-c 1 a.dat @xz:k.xz\texp.out\n"), true, "");
    ASSERT_EQ(ex.size(), 1u);
    EXPECT_EQ(ex[0].program, "iterate_events");
    EXPECT_EQ(ex[0].args, (std::vector<std::string>{"-c", "1", "a.dat", "@xz:k.xz"}));
    EXPECT_EQ(ex[0].expected, "exp.out");

    auto missing = load_cases((dir / "none.tsv").string(), false, "");
    ASSERT_EQ(missing.size(), 1u);
    EXPECT_NE(missing[0].error.find("cannot open the manifest"), std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST(Manifest, TestNamesAreIdentifiers) {
    EXPECT_EQ(test_name("basic-F-comm.x"), "basic_F_comm_x");
}

TEST(Compare, IdenticalAndFirstDifference) {
    EXPECT_TRUE(compare_text("a\nb\n", "a\nb\n").identical);
    auto c = compare_text("a\nb\nc\nd\n", "a\nB\nc\nd\n");
    EXPECT_FALSE(c.identical);
    EXPECT_EQ(c.same_position, 3u);
    EXPECT_EQ(c.same_anywhere, 3u);
    EXPECT_NE(c.report.find("first difference at line 2"), std::string::npos);
    EXPECT_NE(c.report.find("expected 2: b"), std::string::npos);
    EXPECT_NE(c.report.find("actual   2: B"), std::string::npos);
    EXPECT_NE(c.report.find("(75.00%)"), std::string::npos);
}

TEST(Compare, ShiftedLinesStillCountAnywhere) {
    auto c = compare_text("x\na\nb\n", "a\nb\n");
    EXPECT_EQ(c.same_position, 0u);
    EXPECT_EQ(c.same_anywhere, 2u);
    auto t = compare_text("a\n", "a");
    EXPECT_FALSE(t.identical);
    EXPECT_NE(t.report.find("trailing newline"), std::string::npos);
    auto shorter = compare_text("a\nb\n", "a\n");
    EXPECT_NE(shorter.report.find("<end of output after 1 lines>"), std::string::npos);
}

TEST(ReadExpected, DecompressesXzAndRejectsGarbage) {
    const std::string text = "cpus=2\nline two\n";
    std::vector<uint8_t> buf(1024);
    size_t pos = 0;
    ASSERT_EQ(
        lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(text.data()),
                                text.size(), buf.data(), &pos, buf.size()),
        LZMA_OK);
    auto path =
        std::filesystem::temp_directory_path() / ("ringscope-harness-" + std::to_string(getpid()) + ".xz");
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(buf.data(), 1, pos, f);
    std::fclose(f);
    std::string got, err;
    ASSERT_TRUE(read_expected(path.string(), got, err)) << err;
    EXPECT_EQ(got, text);

    f = std::fopen(path.c_str(), "wb");
    std::fwrite(buf.data(), 1, pos / 2, f);  // truncated
    std::fclose(f);
    EXPECT_FALSE(read_expected(path.string(), got, err));
    EXPECT_NE(err.find("xz data corrupt"), std::string::npos);
    std::filesystem::remove(path);
    EXPECT_FALSE(read_expected(path.string(), got, err));
    EXPECT_NE(err.find("cannot open"), std::string::npos);
}

TEST(RunProgram, CapturesStdoutExitCodeCwdAndEnvironment) {
    auto r = run_program("/bin/sh", {"-c", "pwd; echo $HOME $LC_ALL; echo err >&2; exit 3"}, "/tmp", 10);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.out, "/tmp\n/nonexistent C\n");
    EXPECT_EQ(r.err, "err\n");
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_FALSE(r.timed_out);
}

TEST(RunProgram, SignalsTimeoutsAndMissingPrograms) {
    auto crash = run_program("/bin/sh", {"-c", "kill -SEGV $$"}, "/", 10);
    EXPECT_EQ(crash.exit_code, 128 + 11);
    auto slow = run_program("/bin/sh", {"-c", "sleep 5"}, "/", 1);
    EXPECT_TRUE(slow.timed_out);
    auto missing = run_program("/nonexistent/program", {}, "/", 10);
    EXPECT_EQ(missing.exit_code, 127);
    EXPECT_FALSE(missing.error.empty());
    EXPECT_FALSE(find_on_path("sh").empty());
    EXPECT_TRUE(find_on_path("no-such-program-ringscope").empty());
}

// The committed manifests: every case parses, names are unique, and every file they name exists.
TEST(CommittedManifests, AreConsistent) {
    const std::string data = RINGSCOPE_TEST_DATA_DIR;
    struct Manifest {
        std::string path;
        bool examples;
        std::string raw;
    };
    for (const Manifest& m :
         {Manifest{data + "/traces/cases.tsv", false, data + "/traces/raw-oracles.tsv"},
          Manifest{data + "/traces/examples.tsv", true, data + "/traces/raw-examples.tsv"}}) {
        auto cases = load_cases(m.path, m.examples, m.raw);
        std::set<std::string> names;
        for (const auto& c : cases) {
            SCOPED_TRACE(m.path + ": " + c.name);
            EXPECT_TRUE(c.error.empty()) << c.error;
            EXPECT_TRUE(names.insert(test_name(c.name)).second) << "duplicate case name";
            EXPECT_TRUE(std::filesystem::is_regular_file(data + "/" + c.expected)) << c.expected;
            EXPECT_FALSE(c.raw.empty()) << "no raw output listed";
            EXPECT_TRUE(std::filesystem::is_regular_file(data + "/" + c.raw)) << c.raw;
            for (const auto& a : c.args) {
                std::string file = a.starts_with("@xz:") ? a.substr(4) : a;
                if (file.ends_with(".dat") || a.starts_with("@xz:")) {
                    EXPECT_TRUE(std::filesystem::is_regular_file(data + "/" + file)) << file;
                }
            }
        }
        EXPECT_GT(cases.size(), 10u);
    }
}

// Where an expected file is not trace-cmd's raw output, the only change allowed is the sched_switch
// prev_state token (issue #4, "Known differences on purpose"): audit every corrected case.
TEST(CommittedManifests, CorrectionsOnlyTouchSchedSwitchStates) {
    const std::string data = RINGSCOPE_TEST_DATA_DIR;
    auto split = [](const std::string& text, char sep) {
        std::vector<std::string> parts;
        size_t start = 0;
        for (size_t pos; (pos = text.find(sep, start)) != std::string::npos; start = pos + 1) {
            parts.push_back(text.substr(start, pos - start));
        }
        parts.push_back(text.substr(start));
        return parts;
    };
    size_t corrected_cases = 0;
    size_t corrected_lines = 0;
    auto cases = load_cases(data + "/traces/cases.tsv", false, data + "/traces/raw-oracles.tsv");
    auto examples = load_cases(data + "/traces/examples.tsv", true, data + "/traces/raw-examples.tsv");
    cases.insert(cases.end(), examples.begin(), examples.end());
    for (const auto& c : cases) {
        if (c.expected == c.raw || c.raw.empty()) continue;
        SCOPED_TRACE(c.name);
        std::string expected, raw, err;
        ASSERT_TRUE(read_expected(data + "/" + c.expected, expected, err)) << err;
        ASSERT_TRUE(read_expected(data + "/" + c.raw, raw, err)) << err;
        auto exp_lines = split(expected, '\n');
        auto raw_lines = split(raw, '\n');
        ASSERT_EQ(exp_lines.size(), raw_lines.size());
        ++corrected_cases;
        for (size_t i = 0; i < exp_lines.size(); ++i) {
            if (exp_lines[i] == raw_lines[i]) continue;
            ++corrected_lines;
            const std::string& line = raw_lines[i];
            ASSERT_NE(line.find("sched_switch:"), std::string::npos) << "line " << i + 1 << ": " << line;
            auto a = split(line, ' ');
            auto b = split(exp_lines[i], ' ');
            ASSERT_EQ(a.size(), b.size()) << "line " << i + 1;
            size_t changed = 0;
            for (size_t w = 0; w < a.size(); ++w) {
                if (a[w] == b[w]) continue;
                ++changed;
                // The state is the word right before "==>".
                ASSERT_TRUE(w + 1 < a.size() && a[w + 1] == "==>")
                    << "line " << i + 1 << ": " << exp_lines[i];
            }
            EXPECT_EQ(changed, 1u) << "line " << i + 1;
        }
    }
    EXPECT_GT(corrected_cases, 0u);
    EXPECT_GT(corrected_lines, 0u);
}

}  // namespace
}  // namespace ringscope::conformance
