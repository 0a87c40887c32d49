// The instruction flow as events of system "ipt" (`report FILE.pt -O ipt:raw=CODE:ADDR`), through
// the CLI on the committed traces with their code (tests/data/ipt/flow): the calls and returns are
// those `ipt calls` prints and libipt's reference (calls_libipt.c) printed, at the times `ipt calls
// --time` prints; ipt:branch events are taken jumps of `ipt flow`'s instructions; -F filters them;
// bad options are one-line errors.
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace {

const std::string kBin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
const std::string kDir = std::string(RINGSCOPE_TEST_DATA_DIR) + "/ipt/flow/";
const std::string kCode =
    "-O ipt:raw=" + kDir + "code.bin:0x400000 -O ipt:kallsyms=" + kDir + "code.kallsyms ";

std::string shell(const std::string& cmd, int* code = nullptr) {
    std::string out;
    std::FILE* p = popen(cmd.c_str(), "r");
    if (!p) return out;
    char buf[1 << 14];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int rc = pclose(p);
    if (code) *code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    return out;
}

std::string read_file(const std::string& path) {
    std::string out;
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        char buf[1 << 14];
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
        std::fclose(f);
    }
    return out;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// A report line's words after "NAME:" (the event's info), and its name; empty for other lines.
std::pair<std::string, std::vector<std::string>> event_of(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    for (size_t k = 0; k < words.size(); ++k) {
        const std::string& w = words[k];
        if (w == "call:" || w == "return:" || w == "branch:" || w == "error:")
            return {w.substr(0, w.size() - 1), std::vector<std::string>(words.begin() + k + 1, words.end())};
    }
    return {};
}

// report's call, return and error events written as `ipt calls` prints them.
std::string as_calls(const std::string& report) {
    std::string out;
    for (const std::string& line : lines_of(report)) {
        auto [name, info] = event_of(line);
        if (name == "error") {
            // "offset=0xOFF TEXT..." -> "[OFF: error: TEXT]"
            std::string text;
            for (size_t k = 1; k < info.size(); ++k) text += (k > 1 ? " " : "") + info[k];
            out += "[" + info[0].substr(9) + ": error: " + text + "]\n";
        } else if (name == "call" || name == "return") {
            // "IP => TARGET SYMBOL depth=N"
            EXPECT_EQ(info.size(), 5u) << line;
            if (info.size() != 5) continue;
            out += std::string(2 * std::stoul(info[4].substr(6)), ' ');
            out += name == "call" ? info[3] + "() {\n" : "} /* " + info[3] + " */\n";
        }
    }
    return out;
}

TEST(IptFlowEvents, CallsAreThoseIptCallsAndLibiptPrint) {
    for (const char* trace : {"clean", "broken"}) {
        const std::string pt = kDir + trace + ".pt";
        int code = -1;
        const std::string report = shell(kBin + " report " + kCode + pt, &code);
        ASSERT_EQ(code, 0) << trace;
        const std::string calls = as_calls(report);
        EXPECT_GT(lines_of(calls).size(), 1000u) << trace;
        EXPECT_TRUE(calls == read_file(kDir + trace + ".calls.libipt.txt")) << trace;
        const std::string ours = shell(kBin + " ipt calls --raw " + kDir + "code.bin:0x400000 --kallsyms " +
                                       kDir + "code.kallsyms " + pt);
        EXPECT_TRUE(calls == ours) << trace;
    }
    // The broken trace's errors come through as events.
    EXPECT_NE(as_calls(shell(kBin + " report " + kCode + kDir + "broken.pt")).find(": error: "),
              std::string::npos);
}

// Each call's and return's timestamp (JSON's "ts") is the TSC `ipt calls --time` prints.
TEST(IptFlowEvents, TimesAreIptCallsTimes) {
    const std::string json = shell(kBin + " report --format json " + kCode + kDir + "clean.pt");
    std::vector<uint64_t> ts;
    for (const std::string& line : lines_of(json)) {
        if (line.find("\"event\":\"call\"") == std::string::npos &&
            line.find("\"event\":\"return\"") == std::string::npos)
            continue;
        const size_t at = line.find("\"ts\":");
        ASSERT_NE(at, std::string::npos) << line;
        ts.push_back(std::stoull(line.substr(at + 5)));
    }
    std::vector<uint64_t> expected;
    for (const std::string& line :
         lines_of(shell(kBin + " ipt calls --time --raw " + kDir + "code.bin:0x400000 " + kDir + "clean.pt")))
        expected.push_back(std::stoull(line.substr(0, 16), nullptr, 16));
    EXPECT_GT(ts.size(), 1000u);
    EXPECT_EQ(ts, expected);
    EXPECT_NE(ts.front(), ts.back());
}

// flow=branches: the same calls and returns, and between them the taken jumps: with the calls
// and returns, each place where `ipt flow`'s next instruction is not the one after the last.
TEST(IptFlowEvents, BranchesAreTakenJumpsOfTheFlow) {
    const std::string pt = kDir + "clean.pt";
    int code = -1;
    const std::string branches = shell(kBin + " report -O ipt:flow=branches " + kCode + pt, &code);
    ASSERT_EQ(code, 0);
    EXPECT_TRUE(as_calls(branches) == as_calls(shell(kBin + " report " + kCode + pt)));
    // "IP BYTES..." a line (--raw-insn): where control went elsewhere than the next instruction.
    std::vector<std::pair<uint64_t, uint64_t>> jumps;
    uint64_t next = 0;
    bool first = true;
    for (const std::string& line :
         lines_of(shell(kBin + " ipt flow --no-inst --raw-insn --raw " + kDir + "code.bin:0x400000 " + pt))) {
        if (line[0] == '[') continue;
        std::istringstream words(line);
        std::string ip_text, byte;
        words >> ip_text;
        uint64_t size = 0;
        while (words >> byte) ++size;
        const uint64_t ip = std::stoull(ip_text, nullptr, 16);
        if (!first && ip != next) jumps.push_back({next, ip});
        first = false;
        next = ip + size;
    }
    std::vector<std::pair<uint64_t, uint64_t>> events;  // (the address after the branch, target)
    std::set<std::string> kinds;
    size_t count = 0;
    for (const std::string& line : lines_of(branches)) {
        auto [name, info] = event_of(line);
        if (name == "branch") {
            ASSERT_EQ(info.size(), 6u) << line;  // KIND IP => TARGET SYMBOL depth=N
            kinds.insert(info[0]);
            info.erase(info.begin());
            ++count;
        } else if (name != "call" && name != "return") {
            continue;
        }
        events.push_back({std::stoull(info[0], nullptr, 16), std::stoull(info[2], nullptr, 16)});
    }
    // The events give the branch's own address: line them up by target and check the order.
    ASSERT_EQ(events.size(), jumps.size());
    for (size_t k = 0; k < events.size(); ++k) {
        ASSERT_EQ(events[k].second, jumps[k].second) << k;
        ASSERT_LT(events[k].first, jumps[k].first) << k;
        ASSERT_GE(events[k].first + 15, jumps[k].first) << k;
    }
    EXPECT_GT(count, 1000u);
    EXPECT_EQ(kinds, (std::set<std::string>{"jcc", "jmp"}));
}

TEST(IptFlowEvents, FiltersSelectEvents) {
    const std::string pt = kDir + "clean.pt";
    const std::string oracle = read_file(kDir + "clean.calls.libipt.txt");
    size_t calls = 0;
    for (const std::string& l : lines_of(oracle)) calls += l.find("() {") != std::string::npos;
    size_t seen = 0;
    for (const std::string& line : lines_of(shell(kBin + " report -F ipt/call " + kCode + pt))) {
        if (line == "cpus=1") continue;
        EXPECT_EQ(event_of(line).first, "call") << line;
        ++seen;
    }
    EXPECT_EQ(seen, calls);
    EXPECT_GT(seen, 500u);
    seen = 0;
    for (const std::string& line :
         lines_of(shell(kBin + " report -F 'return: depth > 3 && symbol == \"f39\"' " + kCode + pt))) {
        if (line == "cpus=1") continue;
        auto [name, info] = event_of(line);
        ASSERT_EQ(name, "return") << line;
        EXPECT_EQ(info[3], "f39");
        EXPECT_GT(std::stoul(info[4].substr(6)), 3u);
        ++seen;
    }
    EXPECT_GT(seen, 0u);
    // The packet events too.
    seen = 0;
    for (const std::string& line : lines_of(shell(kBin + " report -F ipt/tnt " + pt))) {
        if (line == "cpus=1") continue;
        EXPECT_NE(line.find(" tnt: "), std::string::npos) << line;
        ++seen;
    }
    EXPECT_GT(seen, 100u);
}

// Without code the events are the packets, as before; a bad option is a one-line error naming the
// input, exit 1, nothing printed.
TEST(IptFlowEvents, OptionsAndErrors) {
    const std::string pt = kDir + "clean.pt";
    const std::vector<std::string> packets = lines_of(shell(kBin + " report " + pt));
    ASSERT_GT(packets.size(), 100u);
    EXPECT_NE(packets[1].find("psb:"), std::string::npos);
    EXPECT_EQ(lines_of(shell(kBin + " report -O ipt:flow=packets " + kCode + pt)), packets);
    const char* bad[] = {"-O ipt:raw=/nonexistent/code.bin:0x400000",
                         "-O ipt:raw=" RINGSCOPE_TEST_DATA_DIR "/ipt/flow/code.bin",
                         "-O ipt:flow=calls",
                         "-O ipt:flow=everything -O ipt:raw=/dev/null:0",
                         "-O ipt:elf=" RINGSCOPE_TEST_DATA_DIR "/ipt/flow/code.bin",
                         "-O ipt:kallsyms=/nonexistent -O ipt:raw=" RINGSCOPE_TEST_DATA_DIR
                         "/ipt/flow/code.bin:0x400000"};
    for (const char* options : bad) {
        int code = -1;
        const std::string out = shell(kBin + " report " + options + " " + pt + " 2>&1", &code);
        EXPECT_EQ(code, 1) << options;
        EXPECT_EQ(lines_of(out).size(), 1u) << options << ": " << out;
        EXPECT_NE(out.find("clean.pt: -O ipt:"), std::string::npos) << out;
    }
}

}  // namespace
