// InsnDecoder's faster calls against its own next() and against libipt: next_block (runs from the
// block cache) and next_path (runs walked with the TNT bits at hand) must give the instructions,
// events, statuses and errors next() gives, in the same order, on traces of made-up programs
// (bench/ipt/flow_program.hpp), whole and with bytes broken; and what all of them decode must be
// what libipt 2.0.5's instruction and block decoders decode (bench/reference/flow_libipt.c).
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flow_libipt.h"
#include "flow_program.hpp"
#include "ipt/errors.hpp"
#include "ipt/image.hpp"
#include "ipt/insn_decoder.hpp"
#include "ipt_flow_transcript.hpp"

namespace ri = ringscope::ipt;
namespace rb = ringscope::ipt::bench;

namespace {

using ipt_flow_transcript::Call;
using ipt_flow_transcript::first_difference;

// Every instruction, event, status and error of ptxed's loop over the decoder (2.0.5's packets).
ipt_flow_transcript::Transcript transcript(const std::vector<uint8_t>& pt, const ri::Image& image,
                                           Call call) {
    ri::Config config;
    config.begin = pt.data();
    config.end = pt.data() + pt.size();
    config.packets = ri::PacketSet::libipt_2_0_5;
    ri::InsnDecoder d(config, image);
    return ipt_flow_transcript::transcript(d, call, {});
}

size_t stops(const ipt_flow_transcript::Transcript& t) {
    return ipt_flow_transcript::count(t, ipt_flow_transcript::kStop);
}

struct Case {
    rb::FlowProgram program;
    rb::FlowTrace trace;
    ri::Image image;
};

Case make_case(uint64_t seed, int functions, size_t kib) {
    rb::FlowOptions o;
    o.seed = seed;
    o.functions = functions;
    o.pt_bytes = kib << 10;
    o.psb_period = 1024;
    Case c{rb::make_program(o), {}, {}};
    c.trace = rb::trace_program(c.program, o);
    c.image.add_bytes(c.program.code.data(), c.program.code.size(), c.program.address, "code");
    return c;
}

TEST(IptFlowPath, SameAsNextOnWholeTraces) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        const Case c = make_case(seed, seed % 2 ? 40 : 300, 64);
        const auto next = transcript(c.trace.pt, c.image, Call::next);
        EXPECT_EQ(next.insn, c.trace.insn) << "seed " << seed;
        EXPECT_EQ(first_difference(next, transcript(c.trace.pt, c.image, Call::block)), "")
            << "seed " << seed;
        EXPECT_EQ(first_difference(next, transcript(c.trace.pt, c.image, Call::path)), "") << "seed " << seed;
    }
}

// Broken bytes: errors, resyncs, wrong bits and returns that do not match, anywhere in a walk.
TEST(IptFlowPath, SameAsNextOnBrokenTraces) {
    std::mt19937_64 rng(7);
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        Case c = make_case(seed, 60, 16);
        std::vector<uint8_t> pt = c.trace.pt;
        for (int k = 0; k < 40; ++k) pt[rng() % pt.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
        const auto next = transcript(pt, c.image, Call::next);
        EXPECT_EQ(first_difference(next, transcript(pt, c.image, Call::block)), "") << "seed " << seed;
        EXPECT_EQ(first_difference(next, transcript(pt, c.image, Call::path)), "") << "seed " << seed;
    }
}

// Code that is not all there: runs end at unmapped bytes.
TEST(IptFlowPath, SameAsNextWithHolesInTheImage) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        Case c = make_case(seed, 80, 16);
        ri::Image holes;
        const size_t cut = c.program.code.size() / 3;
        holes.add_bytes(c.program.code.data(), cut, c.program.address, "a");
        holes.add_bytes(c.program.code.data() + cut + 7, c.program.code.size() - cut - 7,
                        c.program.address + cut + 7, "b");
        const auto next = transcript(c.trace.pt, holes, Call::next);
        EXPECT_GT(stops(next), 0u);
        EXPECT_EQ(first_difference(next, transcript(c.trace.pt, holes, Call::block)), "") << "seed " << seed;
        EXPECT_EQ(first_difference(next, transcript(c.trace.pt, holes, Call::path)), "") << "seed " << seed;
    }
}

// Holes where direct calls lead (every third function's first bytes): the walk finds no run at
// a branch's target and must stop with the decoder there, as next() does.
TEST(IptFlowPath, SameAsNextWithHolesAtCallTargets) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        Case c = make_case(seed, 60, 16);
        ri::Image holes;
        const uint64_t base = c.program.address;
        uint64_t from = base;
        for (size_t f = 1; f < c.program.function_start.size(); f += 3) {
            const uint64_t start = c.program.function_start[f];
            holes.add_bytes(c.program.code.data() + (from - base), start - from, from, "code");
            from = start + 1;
        }
        holes.add_bytes(c.program.code.data() + (from - base), c.program.code.size() - (from - base), from,
                        "code");
        const auto next = transcript(c.trace.pt, holes, Call::next);
        EXPECT_GT(stops(next), 0u);
        EXPECT_EQ(first_difference(next, transcript(c.trace.pt, holes, Call::path)), "") << "seed " << seed;
    }
}

// What libipt's decoders decode: the reference's count and path hash for ours too.
TEST(IptFlowPath, SameAsLibipt) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        const Case c = make_case(seed, 200, 256);
        const std::string dir = ::testing::TempDir() + "ipt_flow_path_" + std::to_string(seed);
        std::filesystem::create_directories(dir);
        const std::string code_path = dir + "/code.bin";
        std::FILE* f = std::fopen(code_path.c_str(), "wb");
        ASSERT_TRUE(f);
        ASSERT_EQ(std::fwrite(c.program.code.data(), 1, c.program.code.size(), f), c.program.code.size());
        std::fclose(f);
        const flow_libipt_code code{code_path.c_str(), c.program.address, c.program.code.size(),
                                    c.program.size_at.data(), c.program.kind_at.data()};
        flow_libipt_result block{}, insn{};
        ASSERT_EQ(flow_libipt_decode(c.trace.pt.data(), c.trace.pt.size(), &code, 1, &block), 0);
        ASSERT_EQ(flow_libipt_decode(c.trace.pt.data(), c.trace.pt.size(), &code, 0, &insn), 0);
        EXPECT_EQ(insn.insn, c.trace.insn);
        EXPECT_EQ(block.insn, insn.insn);
        EXPECT_EQ(block.hash, insn.hash);
        // Ours through next_path, reduced the same way.
        ri::Config config;
        config.begin = c.trace.pt.data();
        config.end = c.trace.pt.data() + c.trace.pt.size();
        ri::InsnDecoder d(config, c.image);
        flow_libipt_result ours{};
        flow_libipt_path path{};
        for (int status = d.sync_forward(); status >= 0 || status != -ri::pte_eos;) {
            path.kind = 0;
            if (status < 0) {
                ++ours.errors;
                status = d.sync_forward();
                continue;
            }
            while (status >= 0) {
                while (status >= 0 && (status & ri::pts_event_pending)) {
                    ri::QueryEvent ev;
                    status = d.event(ev);
                    if (status >= 0) ++ours.events;
                }
                if (status < 0) break;
                if (status & ri::pts_eos) {
                    status = -ri::pte_eos;
                    break;
                }
                ri::InsnPath p;
                status = d.next_path(p);
                for (uint32_t r = 0; r < p.nruns; ++r) {
                    const ri::CachedRun& run = d.block_cache().at(p.runs[r]);
                    ours.hash = flow_libipt_step(&path, &code, ours.hash, run.ip, ours.insn, run.end_ip);
                    ours.insn += run.ninsn;
                }
                if (!p.nruns && p.single.ninsn) {
                    ours.hash =
                        flow_libipt_step(&path, &code, ours.hash, p.single.ip, ours.insn, p.single.end_ip);
                    ours.insn += p.single.ninsn;
                }
            }
            if (status == -ri::pte_eos) break;
        }
        EXPECT_EQ(ours.insn, insn.insn) << "seed " << seed;
        EXPECT_EQ(ours.events, insn.events) << "seed " << seed;
        EXPECT_EQ(ours.errors, insn.errors) << "seed " << seed;
        EXPECT_EQ(ours.hash, insn.hash) << "seed " << seed;
        std::filesystem::remove_all(dir);
    }
}

}  // namespace
