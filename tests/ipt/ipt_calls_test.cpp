// `ipt calls` and `ipt profile` against their libipt-based reference (bench/reference/
// calls_libipt.c: libipt 2.0.5's instruction decoder, one instruction at a time, the same call
// tree) on traces of made-up programs (bench/ipt/flow_program.hpp), whole and with broken bytes;
// and the commands' own edges: --time, bad symbol files, usage.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow_program.hpp"
#include "ipt/block_cache.hpp"
#include "ipt/calls.hpp"
#include "ipt/flow_walk.hpp"
#include "ipt/image.hpp"
#include "ipt/run_symbols.hpp"
#include "ipt/symbols.hpp"

namespace fs = std::filesystem;
namespace rb = ringscope::ipt::bench;

namespace {

struct Files {
    std::string code, pt, syms;
};

Files write_case(uint64_t seed, int functions, size_t kib, int flips, uint64_t address = 0x400000,
                 size_t psb_period = 2048, bool cyc = false) {
    rb::FlowOptions o;
    o.cyc = cyc;
    o.address = address;
    o.seed = seed;
    o.functions = functions;
    o.pt_bytes = kib << 10;
    o.psb_period = psb_period;
    const rb::FlowProgram program = rb::make_program(o);
    rb::FlowTrace trace = rb::trace_program(program, o);
    std::mt19937_64 rng(seed);
    for (int k = 0; k < flips; ++k)
        trace.pt[rng() % trace.pt.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    const fs::path dir = fs::path(::testing::TempDir()) / ("ipt_calls_" + std::to_string(seed));
    fs::create_directories(dir);
    Files f{(dir / "code.bin").string(), (dir / "trace.pt").string(), (dir / "code.kallsyms").string()};
    std::ofstream(f.code, std::ios::binary)
        .write(reinterpret_cast<const char*>(program.code.data()),
               static_cast<std::streamsize>(program.code.size()));
    std::ofstream(f.pt, std::ios::binary)
        .write(reinterpret_cast<const char*>(trace.pt.data()), static_cast<std::streamsize>(trace.pt.size()));
    std::ofstream syms(f.syms);
    char line[200];
    for (size_t k = 0; k < program.function_start.size(); ++k) {
        std::snprintf(line, sizeof line, "%016" PRIx64 " T %s\n", program.function_start[k],
                      program.function_name[k].c_str());
        syms << line;
    }
    return f;
}

std::string ours(bool calls, std::vector<std::string> args, int* rc = nullptr,
                 std::string* errors = nullptr) {
    char *text = nullptr, *etext = nullptr;
    size_t size = 0, esize = 0;
    std::FILE* out = open_memstream(&text, &size);
    std::FILE* err = open_memstream(&etext, &esize);
    const int code =
        calls ? ringscope::ipt::calls_main(args, out, err) : ringscope::ipt::profile_main(args, out, err);
    std::fclose(out);
    std::fclose(err);
    if (rc) *rc = code;
    if (errors) *errors = std::string(etext, esize);
    std::string result(text, size);
    std::free(text);
    std::free(etext);
    return result;
}

std::string reference(const char* what, const Files& f, const std::string& address = "0x400000") {
    const std::string command = std::string("'" RINGSCOPE_CALLS_LIBIPT "' ") + what + " --raw '" + f.code +
                                ":" + address + "' --kallsyms '" + f.syms + "' --pt '" + f.pt + "'";
    std::string out;
    std::FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    EXPECT_EQ(pclose(pipe), 0) << command;
    return out;
}

void expect_same_as_reference(const Files& f, const std::string& label) {
    const std::vector<std::string> common = {"--kallsyms", f.syms, "--raw", f.code + ":0x400000", f.pt};
    const std::string calls = ours(true, common);
    EXPECT_GT(calls.size(), 100u) << label;
    EXPECT_TRUE(calls == reference("calls", f)) << label;
    EXPECT_TRUE(ours(false, common) == reference("profile", f)) << label;
    std::vector<std::string> folded = common;
    folded.insert(folded.begin(), "--folded");
    EXPECT_TRUE(ours(false, folded) == reference("folded", f)) << label;
}

TEST(IptCalls, SameAsLibiptReference) {
    for (uint64_t seed = 1; seed <= 4; ++seed)
        expect_same_as_reference(write_case(seed, seed % 2 ? 30 : 150, 48, 0),
                                 "seed " + std::to_string(seed));
}

TEST(IptCalls, SameAsLibiptReferenceWithBrokenBytes) {
    for (uint64_t seed = 11; seed <= 16; ++seed) {
        const Files f = write_case(seed, 60, 24, 30);
        expect_same_as_reference(f, "seed " + std::to_string(seed));
    }
}

// Ours with these name and code arguments against the reference's (--raw at address, --kallsyms).
void expect_named_as_reference(const Files& f, std::vector<std::string> args, const std::string& address) {
    args.push_back(f.pt);
    const std::string calls = ours(true, args);
    EXPECT_GT(calls.size(), 100u);
    EXPECT_TRUE(calls == reference("calls", f, address)) << calls.substr(0, 400);
    EXPECT_TRUE(ours(false, args) == reference("profile", f, address));
    args.insert(args.begin(), "--folded");
    EXPECT_TRUE(ours(false, args) == reference("folded", f, address));
}

int shell(const std::string& command) {
    return std::system(("(" + command + ") >/dev/null 2>&1").c_str());
}

// --elf: the code and the names from an ELF file (made with binutils from the program's code and
// its kallsyms), against the reference with --raw and --kallsyms.
TEST(IptCalls, NamesFromElfSymbols) {
    if (shell("command -v objcopy && command -v ld") != 0) GTEST_SKIP() << "binutils are not installed";
    const Files f = write_case(21, 40, 32, 0);
    std::string add;
    std::ifstream syms(f.syms);
    for (std::string addr, type, name; syms >> addr >> type >> name;)
        add += " --add-symbol '" + name +
               "=.text:" + std::to_string(std::stoull(addr, nullptr, 16) - 0x400000) + ",function,global'";
    const std::string obj = f.code + ".o";
    ASSERT_EQ(shell("cd '" + fs::path(f.code).parent_path().string() +
                    "' && objcopy -I binary -O elf64-x86-64 -B i386:x86-64 --rename-section "
                    ".data=.text,alloc,load,readonly,code,contents" +
                    add + " code.bin '" + obj + "'"),
              0);
    auto link = [&](const char* text) {
        const std::string elf = f.code + "." + text + ".elf";
        EXPECT_EQ(shell(std::string("ld -Ttext=") + text + " -e " + text + " -o '" + elf + "' '" + obj + "'"),
                  0);
        return elf;
    };
    expect_named_as_reference(f, {"--elf", link("0x400000")}, "0x400000");
    // Linked elsewhere and moved back with a base (the lowest segment, the headers' page below
    // the code, lands there): the symbols move with the code.
    expect_named_as_reference(f, {"--elf", link("0x800000") + ":0x3ff000"}, "0x400000");
}

// --kallsyms FILE.dat: names from the kallsyms a trace.dat carries (the framework's resolver),
// for code at kernel addresses, against the reference with the same kallsyms as trace-cmd dumps
// them.
TEST(IptCalls, NamesFromTraceDatKallsyms) {
    const std::string dat = (fs::path(RINGSCOPE_TEST_DATA_DIR) / "traces/basic.dat").string();
    if (shell("command -v trace-cmd") != 0) GTEST_SKIP() << "trace-cmd (the oracle) is not installed";
    const std::string kallsyms = (fs::path(::testing::TempDir()) / "ipt_calls_basic.kallsyms").string();
    ASSERT_EQ(shell("trace-cmd dump --kallsyms '" + dat + "' > '" + kallsyms + "'"), 0);
    // Somewhere in kernel text with many functions: the code of do_syscall_64 and after it.
    uint64_t at = 0;
    std::ifstream in(kallsyms);
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string addr, type, name;
        if (words >> addr >> type >> name && name == "do_syscall_64") at = std::stoull(addr, nullptr, 16);
    }
    ASSERT_NE(at, 0u);
    Files f = write_case(22, 40, 32, 0, at);
    f.syms = kallsyms;
    char address[32];
    std::snprintf(address, sizeof address, "0x%" PRIx64, at);
    expect_named_as_reference(f, {"--kallsyms", dat, "--raw", f.code + ":" + address}, address);
    const std::string calls = ours(true, {"--kallsyms", dat, "--raw", f.code + ":" + address, f.pt});
    EXPECT_NE(calls.find("do_syscall_64"), std::string::npos) << calls.substr(0, 400);
}

TEST(IptCalls, TimeColumnFromTimingPackets) {
    const Files f = write_case(3, 30, 16, 0);
    const std::string out = ours(true, {"--time", "--kallsyms", f.syms, "--raw", f.code + ":0x400000", f.pt});
    // Each line: 16 hex digits, two blanks; the TSC of the PSB+ and the MTCs after it never fall.
    uint64_t last = 0;
    size_t lines = 0;
    for (size_t at = 0; at < out.size(); at = out.find('\n', at) + 1, ++lines) {
        ASSERT_EQ(out.substr(at + 16, 2), "  ") << out.substr(at, 40);
        const uint64_t tsc = std::stoull(out.substr(at, 16), nullptr, 16);
        EXPECT_GE(tsc, last);
        last = tsc;
    }
    EXPECT_GT(lines, 50u);
    EXPECT_GE(last, 0x1000000u);  // the generator's first TSC
}

// profile --time: TSC ticks per function, against the reference's (the time after each
// instruction less the time after the one before), and calls --time, whole and with broken bytes;
// the last two with a CYC after every packet (the time moves at each, inside the walks' TNT runs
// too).
TEST(IptCalls, TimeSameAsLibiptReference) {
    for (uint64_t seed = 31; seed <= 36; ++seed) {
        // A PSB+ (with its TSC) every 256 bytes: the time moves often.
        const Files f = write_case(seed, 50, 32, seed == 34 || seed == 36 ? 20 : 0, 0x400000,
                                   seed >= 35 ? 1024 : 256, seed >= 35);
        const std::vector<std::string> args = {"--time", "--kallsyms",         f.syms,
                                               "--raw",  f.code + ":0x400000", f.pt};
        const std::string table = ours(false, args);
        EXPECT_NE(table.find("         ticks      %  function\n"), std::string::npos) << table.substr(0, 80);
        EXPECT_GE(std::count(table.begin(), table.end(), '\n'), 8);
        EXPECT_TRUE(table == reference("profile --time", f)) << "seed " << seed << "\n"
                                                             << table.substr(0, 400);
        std::vector<std::string> folded = args;
        folded.insert(folded.begin(), "--folded");
        EXPECT_TRUE(ours(false, folded) == reference("folded --time", f)) << "seed " << seed;
        EXPECT_TRUE(ours(true, args) == reference("calls --time", f)) << "seed " << seed;
    }
}

// Each run a step takes and the decoder's time before and after it: one run a step (next_block),
// or a timed walk's path (next_path_timed) cut into its runs at the times RunTimes gives. Syncs
// and errors as lines too.
std::string timed_runs(const rb::FlowProgram& program, const std::vector<uint8_t>& pt, bool one_run) {
    namespace ri = ringscope::ipt;
    ri::Image image;
    image.add_bytes(program.code.data(), program.code.size(), program.address, "code");
    ri::Config config;
    config.begin = pt.data();
    config.end = pt.data() + pt.size();
    ri::InsnDecoder d(config, image);
    ri::FlowWalk walk(d, nullptr, true);
    std::string out;
    char line[128];
    auto put = [&](uint64_t ip, uint64_t n, uint64_t before, uint64_t after) {
        std::snprintf(line, sizeof line, "%" PRIx64 " %" PRIu64 " %" PRIx64 " %" PRIx64 "\n", ip, n, before,
                      after);
        out += line;
    };
    ri::InsnPath p;
    for (ri::FlowWalk::Step step; (step = walk.next(p, one_run)) != ri::FlowWalk::Step::end;) {
        if (step != ri::FlowWalk::Step::run) {
            out += step == ri::FlowWalk::Step::synced ? "sync\n"
                                                      : "error " + std::to_string(walk.status()) + "\n";
            continue;
        }
        const uint64_t before = walk.time_before(), after = walk.time_after();
        if (!p.nruns && p.single.ninsn) put(p.single.ip, p.single.ninsn, before, after);
        ri::RunTimes times(p, before, after);
        for (uint32_t r = 0; r < p.nruns; ++r) {
            const ri::CachedRun& c = d.block_cache().at(p.runs[r]);
            const uint64_t was = times.at();
            put(c.ip, c.ninsn, was, times.next());
        }
    }
    return out;
}

TEST(IptCalls, TimedWalkRunsAtOneRunTimes) {
    for (uint64_t seed = 41; seed <= 42; ++seed) {
        rb::FlowOptions o;
        o.seed = seed;
        o.functions = 40;
        o.pt_bytes = 48 << 10;
        o.psb_period = 1024;
        o.cyc = true;
        const rb::FlowProgram program = rb::make_program(o);
        rb::FlowTrace trace = rb::trace_program(program, o);
        std::mt19937_64 rng(seed);
        for (int k = 0; seed == 42 && k < 20; ++k)
            trace.pt[rng() % trace.pt.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
        const std::string walks = timed_runs(program, trace.pt, false),
                          runs = timed_runs(program, trace.pt, true);
        EXPECT_GT(runs.size(), 100000u);
        // The first line that differs.
        size_t at = 0;
        while (at < walks.size() && at < runs.size() && walks[at] == runs[at]) ++at;
        at = walks.rfind('\n', at) + 1;
        EXPECT_TRUE(walks == runs) << "seed " << seed << " at line "
                                   << std::count(walks.begin(), walks.begin() + static_cast<long>(at), '\n')
                                   << "\nwalks: " << walks.substr(at, 200)
                                   << "\none run: " << runs.substr(at, 200);
    }
}

TEST(IptCalls, ProfileTableAddsUp) {
    const Files f = write_case(5, 40, 16, 0);
    const std::string table = ours(false, {"--kallsyms", f.syms, "--raw", f.code + ":0x400000", f.pt});
    EXPECT_EQ(table.rfind("  instructions      %  function\n", 0), 0u) << table.substr(0, 80);
    EXPECT_NE(table.find("  main\n"), std::string::npos);
}

TEST(IptCalls, BadInputs) {
    const Files f = write_case(6, 20, 8, 0);
    const fs::path bad = fs::path(::testing::TempDir()) / "ipt_calls_bad.kallsyms";
    std::ofstream(bad) << "0000000000400000 T main\nnot-an-address T f\n";
    int rc = 0;
    std::string err;
    ours(true, {"--kallsyms", bad.string(), "--raw", f.code + ":0x400000", f.pt}, &rc, &err);
    EXPECT_EQ(rc, 1);
    EXPECT_NE(err.find("ipt_calls_bad.kallsyms"), std::string::npos) << err;
    EXPECT_NE(err.find("2"), std::string::npos) << err;
    ours(false, {"--raw", f.code + ":0x400000"}, &rc, &err);
    EXPECT_EQ(rc, 2);
    ours(false, {"--frobnicate", f.pt}, &rc, &err);
    EXPECT_EQ(rc, 2);
    ours(true, {"--raw", f.code + ":0x400000", "/nonexistent/trace.pt"}, &rc, &err);
    EXPECT_EQ(rc, 1);
    EXPECT_NE(err.find("/nonexistent/trace.pt"), std::string::npos) << err;
}

// The symbols remembered per run of the block cache (RunSymbols) follow the cache when it starts
// again (BlockCache::kMaxRuns runs): a run index then names another run, whose symbols are not
// the old ones. Code of one-byte returns, each its own run, one symbol per 256 bytes.
TEST(IptCalls, RunSymbolsFollowTheCacheWhenItStartsAgain) {
    namespace ri = ringscope::ipt;
    constexpr uint64_t kBase = 0x400000;
    const size_t n = ri::BlockCache::kMaxRuns + 4096;
    const std::vector<uint8_t> code(n, 0xc3);
    ri::Image image;
    image.add_bytes(code.data(), code.size(), kBase, "rets");
    ri::Symbols symbols;
    for (uint64_t at = 0; at < n; at += 256) symbols.add(kBase + at, "s" + std::to_string(at / 256));
    ri::BlockCache cache;
    ri::RunSymbols table(symbols);
    size_t wrong = 0, first_wrong = 0;
    for (size_t k = 0; k < n; ++k) {
        uint32_t index = 0;
        ASSERT_NE(cache.find(image, kBase + k, ri::em_64bit, &index), nullptr) << k;
        // After the restart, index names another run than the one remembered under it.
        const ri::RunSymbol s = table.of(cache, index);
        const int want = symbols.find(kBase + k);
        if ((s.first != want || s.last != want) && !wrong++) first_wrong = k;
    }
    EXPECT_EQ(cache.generation(), 1u);
    EXPECT_EQ(wrong, 0u) << "first at run " << first_wrong;
}

}  // namespace
