// `ringscope ipt flow -j N` prints what -j 1 prints, byte for byte: on every ptxed run of libipt's
// suite (../shared, skipped without it), on the committed streams, and on traces of made-up
// programs (bench/ipt/flow_program.cpp) built to break a decode that concatenates parts decoded
// from their PSBs: returns compressed across PSBs, tracing off across PSBs, timing shown
// (--event:time, --event:tick: the calibration differs after a PSB), bytes broken at the cuts.
// Parts of a few hundred bytes put many cuts in each stream; the made-up traces must also join
// parts (else the test would pass on a decode that is sequential after all).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow_program.hpp"
#include "ipt/flow.hpp"
#include "ipt_suite_text.hpp"

namespace fs = std::filesystem;
namespace rb = ringscope::ipt::bench;

namespace {

struct Run {
    int rc = 0;
    std::string out, err;
};

Run flow(std::vector<std::string> args) {
    Run r;
    char *out = nullptr, *err = nullptr;
    size_t out_size = 0, err_size = 0;
    std::FILE* o = open_memstream(&out, &out_size);
    std::FILE* e = open_memstream(&err, &err_size);
    r.rc = ringscope::ipt::flow_main(args, o, e);
    std::fclose(o);
    std::fclose(e);
    r.out.assign(out, out_size);
    r.err.assign(err, err_size);
    std::free(out);
    std::free(err);
    return r;
}

// What -j did (from --stat:jobs).
struct Jobs {
    size_t parts = 0, joined = 0, handed_on = 0, sequential_from = 0, steps = 0, caller_steps = 0;
};

Jobs jobs_of(const std::string& err) {
    Jobs j;
    if (std::sscanf(err.c_str(),
                    "parts: %zu, joined: %zu, handed on: %zu, sequential from part: %zu, steps: %zu (on the "
                    "caller: %zu)",
                    &j.parts, &j.joined, &j.handed_on, &j.sequential_from, &j.steps, &j.caller_steps) != 6)
        return {};
    return j;
}

// The parts -j joined.
size_t joined(const std::string& err) {
    return jobs_of(err).joined;
}

// -j 2 and -j 4 with parts of each size against -j 1; the joins summed.
size_t expect_same(const std::vector<std::string>& args, const std::string& what,
                   const std::vector<std::string>& part_bytes = {"200", "1000", "5000"}) {
    const Run one = flow(args);
    size_t joins = 0;
    for (const char* jobs : {"2", "4"}) {
        for (const std::string& pb : part_bytes) {
            std::vector<std::string> a = {"-j", jobs, "--part-bytes", pb, "--stat:jobs"};
            a.insert(a.end(), args.begin(), args.end());
            const Run many = flow(a);
            EXPECT_EQ(many.rc, one.rc) << what << " -j " << jobs << " parts " << pb;
            EXPECT_TRUE(many.out == one.out) << what << " -j " << jobs << " parts " << pb << ": "
                                             << one.out.size() << " bytes at -j 1, " << many.out.size();
            joins += joined(many.err);
        }
    }
    return joins;
}

// What write_file wrote, removed when the test program ends.
struct WrittenFiles {
    std::vector<std::string> paths;
    ~WrittenFiles() {
        for (const std::string& p : paths) std::remove(p.c_str());
    }
} written_files;

std::string write_file(const std::string& name, const std::vector<uint8_t>& bytes) {
    // The pid keeps two builds' runs of the same test (another checkout, the sanitizer build) apart.
    const std::string path =
        ::testing::TempDir() + "ipt_flow_jobs_" + std::to_string(::getpid()) + "_" + name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    written_files.paths.push_back(path);
    return path;
}

struct Made {
    std::string code, pt;
};

Made make(const std::string& name, rb::FlowOptions o, bool break_at_psbs = false) {
    o.functions = 60;
    o.psb_period = 512;
    const rb::FlowProgram program = rb::make_program(o);
    std::vector<uint8_t> pt = rb::trace_program(program, o).pt;
    if (break_at_psbs) {
        // A byte flipped just before or after every third PSB: errors at the cuts.
        std::mt19937_64 rng(o.seed);
        int psbs = 0;
        for (size_t i = 16; i + 16 < pt.size(); ++i) {
            if (pt[i] != 0x02 || pt[i + 1] != 0x82 || pt[i + 2] != 0x02 || pt[i + 3] != 0x82) continue;
            if (++psbs % 3 == 0) pt[rng() % 2 ? i - 1 - rng() % 8 : i + 16 + rng() % 8] ^= 1u << (rng() % 8);
            i += 15;
        }
    }
    return {write_file(name + ".bin", program.code), write_file(name + ".pt", pt)};
}

// The offsets of the first n PSBs after the first.
std::vector<uint64_t> psbs(const std::string& path, size_t n) {
    std::ifstream in(path, std::ios::binary);
    const std::string pt((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<uint64_t> at;
    const std::string psb = "\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82\x02\x82";
    for (size_t i = pt.find(psb, 1); i != std::string::npos && at.size() < n; i = pt.find(psb, i + 16))
        at.push_back(i);
    return at;
}

std::vector<std::string> args_for(const Made& m, std::vector<std::string> extra) {
    std::vector<std::string> a = {"--raw", m.code + ":0x400000", "--pt", m.pt};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

TEST(IptFlowJobs, MadeUpTraces) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        rb::FlowOptions o;
        o.seed = seed;
        o.pt_bytes = 24 << 10;
        const Made m = make("plain", o);
        size_t joins = expect_same(args_for(m, {"--no-inst"}), "plain");
        joins += expect_same(args_for(m, {"--block-decoder", "--block:show-blocks", "--stat"}), "blocks");
        joins += expect_same(args_for(m, {"--insn-decoder", "--quiet", "--stat"}), "quiet");
        EXPECT_GT(joins, 20u) << "seed " << seed;
    }
}

TEST(IptFlowJobs, ReturnsCompressedAcrossPsbs) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        rb::FlowOptions o;
        o.seed = seed;
        o.pt_bytes = 24 << 10;
        o.compress_across_psb = true;
        const Made m = make("compressed", o);
        const std::vector<std::string> args = args_for(m, {"--no-inst"});
        EXPECT_EQ(flow(args).out.find("compressed return without call"), std::string::npos);
        // The premise: decoders started at later PSBs pop returns they have not seen.
        size_t empty = 0;
        for (uint64_t psb : psbs(m.pt, 12))
            empty +=
                flow({"--no-inst", "--raw", m.code + ":0x400000", "--pt", m.pt + ":" + std::to_string(psb)})
                    .out.find("compressed return without call") != std::string::npos;
        EXPECT_GT(empty, 0u) << "seed " << seed;
        expect_same(args, "compressed returns");
    }
}

// Returns compressed across every PSB of a long stream: each part's decoder pops returns whose
// calls came before its PSB, so each is handed the stack of the part before and goes on; -j must
// print what -j 1 prints without falling back to a sequential decode.
TEST(IptFlowJobs, ReturnsCompressedAcrossManyPsbs) {
    rb::FlowOptions o;
    o.seed = 5;
    o.pt_bytes = 48 << 10;
    o.compress_across_psb = true;
    const Made m = make("compressed_many", o);
    const std::vector<std::string> args = args_for(m, {"--no-inst", "--stat"});
    const ::Run one = flow(args);
    ASSERT_EQ(one.out.find("error"), std::string::npos);
    for (const char* jobs : {"2", "3"}) {
        for (const char* pb : {"300", "2000"}) {
            std::vector<std::string> a = {"-j", jobs, "--part-bytes", pb, "--stat:jobs"};
            a.insert(a.end(), args.begin(), args.end());
            const ::Run many = flow(a);
            EXPECT_TRUE(many.out == one.out) << "-j " << jobs << " parts " << pb;
            const Jobs j = jobs_of(many.err);
            EXPECT_GT(j.parts, 15u) << many.err;
            EXPECT_EQ(j.sequential_from, j.parts) << "fell back to a sequential decode: " << many.err;
            EXPECT_EQ(j.joined + 1, j.parts) << many.err;
            EXPECT_GT(j.handed_on, j.parts / 2) << many.err;
        }
    }
}

// A part suspended at its next cut (its return stack's bottom still open) is resumed on the
// calling thread once the part before has joined: there it waits for the next part's first
// steps and joins at the first that agrees, rather than decode on what the next part decodes
// (which took the calling thread through up to 8 KiB of each part).
TEST(IptFlowJobs, CallerDecodesOnlyToTheJoin) {
    rb::FlowOptions o;
    o.seed = 7;
    o.pt_bytes = 48 << 10;
    const Made m = make("caller_steps", o);
    const std::vector<std::string> args = args_for(m, {"--no-inst"});
    const ::Run one = flow(args);
    std::vector<std::string> a = {"-j", "2", "--part-bytes", "2000", "--stat:jobs"};
    a.insert(a.end(), args.begin(), args.end());
    const ::Run many = flow(a);
    EXPECT_TRUE(many.out == one.out);
    const Jobs j = jobs_of(many.err);
    EXPECT_GT(j.parts, 15u) << many.err;
    EXPECT_EQ(j.joined + 1, j.parts) << many.err;
    EXPECT_GT(j.handed_on, j.parts / 2) << many.err;
    EXPECT_LE(j.caller_steps, 2 * j.handed_on) << many.err;
}

// --quiet counts a path at a time: the counts --stat prints are those of the printing decode, with
// each decoder and block option, on a clean stream and on one with errors.
TEST(IptFlowJobs, QuietCountsAsPrinted) {
    rb::FlowOptions o;
    o.seed = 6;
    o.pt_bytes = 24 << 10;
    auto stat = [](const std::string& out) { return out.substr(out.rfind("insn: ")); };
    for (bool broken : {false, true}) {
        const Made m = make(broken ? "quiet_broken" : "quiet", o, broken);
        for (std::vector<std::string> opts : {std::vector<std::string>{"--insn-decoder"},
                                              {"--block-decoder"},
                                              {"--block:end-on-call"},
                                              {"--block:end-on-jump", "--resync-on-error"}}) {
            opts.push_back("--stat");
            std::vector<std::string> quiet = opts, shown = opts;
            quiet.push_back("--quiet");
            shown.push_back("--no-inst");
            const ::Run q = flow(args_for(m, quiet)), s = flow(args_for(m, shown));
            ASSERT_NE(s.out.rfind("insn: "), std::string::npos);
            EXPECT_EQ(stat(q.out), stat(s.out)) << opts[0] << (broken ? " broken" : "");
        }
    }
}

TEST(IptFlowJobs, TracingOffAcrossPsbs) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        rb::FlowOptions o;
        o.seed = seed;
        o.pt_bytes = 24 << 10;
        o.disable_every = 2;
        const Made m = make("disabled", o);
        const std::vector<std::string> args = args_for(m, {"--no-inst", "--event:ip"});
        EXPECT_NE(flow(args).out.find("[disabled"), std::string::npos);
        EXPECT_GT(expect_same(args, "disabled"), 0u);
    }
}

TEST(IptFlowJobs, TimeShown) {
    rb::FlowOptions o;
    o.seed = 4;
    o.pt_bytes = 12 << 10;
    o.disable_every = 3;
    const Made m = make("time", o);
    // No CYC packets: the parts join (the calibration left out of the comparison).
    EXPECT_GT(expect_same(args_for(m, {"--no-inst", "--event:time"}), "time"), 0u);
    EXPECT_GT(expect_same(args_for(m, {"--no-inst", "--event:tick", "--event:time", "--mtc-freq", "3",
                                       "--cpuid-0x15.eax", "1", "--cpuid-0x15.ebx", "2", "--nom-freq", "4"}),
                          "ticks", {"300", "3000"}),
              0u);
}

TEST(IptFlowJobs, ErrorsAtTheCuts) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        rb::FlowOptions o;
        o.seed = seed;
        o.pt_bytes = 24 << 10;
        o.compress_across_psb = seed % 2;
        const Made m = make("broken", o, true);
        const std::vector<std::string> args = args_for(m, {"--no-inst"});
        EXPECT_NE(flow(args).out.find("error"), std::string::npos);
        expect_same(args, "broken");
        expect_same(args_for(m, {"--no-inst", "--resync-on-error"}), "broken, resync");
    }
}

TEST(IptFlowJobs, CommittedStreams) {
    const fs::path dir = fs::path(RINGSCOPE_TEST_DATA_DIR) / "ipt";
    size_t streams = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".pt") continue;
        ++streams;
        // No code for them: the flow is the errors and events of each sync.
        expect_same({"--no-inst", "--event:time", "--pt", entry.path().string()},
                    entry.path().filename().string(), {"1", "700"});
    }
    EXPECT_GE(streams, 3u);
}

TEST(IptFlowJobs, PtxedSuite) {
    const fs::path dir = fs::path(RINGSCOPE_SHARED_DIR) / "conformance/ipt/libipt-suite";
    if (!fs::exists(dir / "manifest-ptxed.tsv")) GTEST_SKIP() << dir << " is absent";
    std::ifstream manifest(dir / "manifest-ptxed.tsv");
    std::string row;
    size_t runs = 0;
    while (std::getline(manifest, row)) {
        if (row.empty() || row[0] == '#') continue;
        const std::vector<std::string> cols = ipt_suite::split(row, '\t');
        ASSERT_GE(cols.size(), 5u) << row;
        const std::vector<std::string> argv = ipt_suite::split(cols[4], ' ');
        std::vector<std::string> args;
        for (size_t i = 0; i < argv.size(); ++i) {
            args.push_back(argv[i]);
            if ((argv[i] == "--raw" || argv[i] == "--pt") && i + 1 < argv.size())
                args.push_back((dir / argv[++i]).string());
        }
        expect_same(args, cols[0] + " " + cols[4], {"1", "16", "64"});
        ++runs;
    }
    EXPECT_EQ(runs, 860u);
}

}  // namespace
