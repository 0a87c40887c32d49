// -j: PSB segments decoded on threads give the same dump, summary and packet list as one thread,
// on generated streams with many PSBs, clean and damaged (corrupted bytes, garbage before the first
// PSB, a truncated end, PSBs close together, no PSB). Small parts put a cut at almost every PSB, so
// damaged streams also take the path where decoding runs past a cut and a part is dropped.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ipt/errors.hpp"
#include "ipt/event_builder.hpp"
#include "ipt/event_sequence.hpp"
#include "ipt/packet_summary.hpp"
#include "ipt/psb_parts.hpp"
#include "ipt/ptdump.hpp"
#include "ipt/trace_file.hpp"
#include "ipt_stream_generator.hpp"
#include "ipt_test_bytes.hpp"
#include "no_symbols.hpp"

namespace ri = ringscope::ipt;
using ri::testing::GeneratorOptions;
using ri::testing::NoSymbols;

namespace {

using ipt_test::write_temp;

struct Case {
    std::string name;
    std::vector<uint8_t> bytes;
};

void put_psb_plus(std::vector<uint8_t>& out) {
    for (int i = 0; i < 8; ++i) out.insert(out.end(), {0x02, 0x82});
    out.insert(out.end(), {0x02, 0x23});  // PSBEND
}

// An MTC whose payload byte is the first byte of the next PSB: decoding goes on inside that PSB,
// past the cut there; some PSBs come twice, back to back.
std::vector<uint8_t> packet_across_psb() {
    std::vector<uint8_t> out;
    for (int round = 0; round < 30; ++round) {
        put_psb_plus(out);
        out.insert(out.end(), {0x06, 0x00, 0x0a});  // TNT-8, PAD, TNT-8
        if (round % 3 == 1) out.push_back(0x59);
        if (round % 5 == 2)
            for (int i = 0; i < 8; ++i) out.insert(out.end(), {0x02, 0x82});
    }
    return out;
}

std::vector<Case> cases() {
    std::vector<Case> all;
    auto add = [&](uint64_t seed, const GeneratorOptions& o) {
        all.push_back({"seed " + std::to_string(seed) + " " + ri::testing::describe(o),
                       ri::testing::generate_stream(seed, o)});
    };
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        GeneratorOptions base;
        base.segments = 40;
        base.body_packets = 30;
        add(seed, base);
        GeneratorOptions o = base;
        o.corruptions = 25;
        add(seed, o);
        o = base;
        o.garbage_before = o.truncate_last = true;
        add(seed, o);
        o = base;
        o.close_psbs = true;
        o.corruptions = 10;
        add(seed, o);
        o = base;
        o.no_psb = true;
        add(seed, o);
        o = ri::testing::random_options(seed);
        o.segments = 30;
        add(seed, o);
    }
    all.push_back({"packet across a PSB", packet_across_psb()});
    return all;
}

// cases() and four realistic streams (long runs of fast packets), every other one corrupted.
std::vector<Case> cases_and_realistic(size_t segments, size_t body_packets, size_t corruptions) {
    std::vector<Case> all = cases();
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        GeneratorOptions o;
        o.realistic = true;
        o.segments = segments;
        o.body_packets = body_packets;
        if (seed % 2 == 0) o.corruptions = corruptions;
        all.push_back({"realistic " + std::to_string(seed), ri::testing::generate_stream(seed, o)});
    }
    return all;
}

// Captures what f writes to a FILE*.
template <class F>
std::string capture(F&& f) {
    char* buf = nullptr;
    size_t len = 0;
    std::FILE* out = open_memstream(&buf, &len);
    if (!out) return "open_memstream failed";
    f(out);
    std::fclose(out);
    std::string text(buf, len);
    std::free(buf);
    return text;
}

std::string dump(const ri::Config& config, const ri::PtdumpOptions& options, unsigned threads,
                 uint64_t part_bytes) {
    int status = 0;
    std::string text =
        capture([&](std::FILE* out) { status = ri::ptdump(config, options, out, threads, part_bytes); });
    return text + "status " + std::to_string(status) + "\n";
}

std::string summary(const ri::Config& config, unsigned threads, uint64_t part_bytes) {
    ri::PacketSummary s;
    s.add_stream(config, threads, part_bytes);
    return s.save_state().dump();
}

ri::Config config_of(const ri::TraceBytes& bytes) {
    ri::Config c;
    c.begin = bytes.begin();
    c.end = bytes.end();
    return c;
}

constexpr uint64_t kPartSizes[] = {1, 100, 1000, 0};

TEST(IptParallel, DumpEqualsSerial) {
    size_t nonempty = 0;
    for (const Case& c : cases()) {
        ri::TraceBytes bytes = ri::TraceBytes::copy(c.bytes.data(), c.bytes.size());
        ri::Config config = config_of(bytes);
        ri::PtdumpOptions options;
        std::string serial = dump(config, options, 1, 0);
        if (serial.size() > 100) ++nonempty;
        for (uint64_t part : kPartSizes)
            for (unsigned threads : {2u, 3u})
                ASSERT_EQ(dump(config, options, threads, part), serial)
                    << c.name << " part " << part << " -j " << threads;
        options.show_raw_bytes = true;
        options.no_pad = true;
        EXPECT_EQ(dump(config, options, 2, 1), dump(config, options, 1, 0)) << c.name;
        // Last-IP tracking carries state across PSBs: -j falls back to one thread.
        options.show_last_ip = true;
        EXPECT_EQ(dump(config, options, 2, 1), dump(config, options, 1, 0)) << c.name;
    }
    EXPECT_GT(nonempty, 20u);
}

TEST(IptParallel, SummaryEqualsSerial) {
    for (const Case& c : cases()) {
        ri::TraceBytes bytes = ri::TraceBytes::copy(c.bytes.data(), c.bytes.size());
        ri::Config config = config_of(bytes);
        std::string serial = summary(config, 1, 0);
        for (uint64_t part : kPartSizes)
            for (unsigned threads : {2u, 3u})
                ASSERT_EQ(summary(config, threads, part), serial) << c.name << " part " << part;
    }
}

// for_each (blocks of packets found at once, then packet by packet near the stop) against one next()
// call per packet: the same packets with the same payloads, the same error at the same offset,
// and the same stop, for stops anywhere in the stream; on realistic streams too, whose long runs
// of fast packets stay in the blocks.
TEST(IptParallel, ForEachEqualsNext) {
    auto line = [](uint64_t off, const ri::Packet& p) {
        std::string s = std::to_string(off) + " " + std::to_string(static_cast<int>(p.type)) + " " +
                        std::to_string(p.size);
        const auto* raw = reinterpret_cast<const uint8_t*>(&p.payload);
        for (size_t i = 0; i < sizeof p.payload; ++i) s += " " + std::to_string(raw[i]);
        return s + "\n";
    };
    std::vector<Case> all = cases_and_realistic(20, 300, 30);
    size_t packets = 0;
    for (const Case& c : all) {
        ri::TraceBytes bytes = ri::TraceBytes::copy(c.bytes.data(), c.bytes.size());
        ri::Config config = config_of(bytes);
        const uint64_t size = bytes.size();
        // With SKD007's workaround, CYCs of 2 or 3 bytes leave the blocks for next().
        for (uint64_t stop : {size, size / 2, size / 3 + 7, uint64_t{100}, size + 1}) {
            config.errata.skd007 = stop == size + 1;
            std::string batch, single;
            ri::PacketDecoder a(config), b(config);
            int sa = a.sync_forward(), sb = b.sync_forward();
            ASSERT_EQ(sa, sb);
            for (int round = 0; sa >= 0 && round < 10000; ++round) {
                sa = a.for_each([&](uint64_t off, const ri::Packet& p) { batch += line(off, p); },
                                config.begin + stop);
                uint64_t at = 0;
                a.get_offset(at);
                batch += "end " + std::to_string(sa) + " at " + std::to_string(at) + "\n";
                if (sa == 0 || sa == -ri::pte_eos) break;
                sa = a.sync_forward();
            }
            for (int round = 0; sb >= 0 && round < 10000; ++round) {
                for (;;) {
                    uint64_t at = 0;
                    b.get_offset(at);
                    if (at >= stop && at < size) {
                        sb = 0;
                        break;
                    }
                    ri::Packet p;
                    sb = b.next(p);
                    if (sb < 0) break;
                    single += line(at, p);
                    ++packets;
                }
                uint64_t at = 0;
                b.get_offset(at);
                single += "end " + std::to_string(sb) + " at " + std::to_string(at) + "\n";
                if (sb == 0 || sb == -ri::pte_eos) break;
                sb = b.sync_forward();
            }
            ASSERT_EQ(batch, single) << c.name << " stop " << stop;
        }
    }
    EXPECT_GT(packets, 100000u);
}

// The parts machinery itself: packet lists (with errors and resyncs) equal one serial decode, and
// damaged streams do drop parts (the fallback is exercised, not only the clean path).
TEST(IptParallel, PartsEqualSerialAndDropWhereDecodingCrossesCuts) {
    using Packets = std::vector<std::string>;
    auto decode = [](Packets& out, ri::PacketDecoder& d, uint64_t stop, uint64_t size) -> uint64_t {
        const uint8_t* limit = d.config().begin + stop;
        for (;;) {
            int err = d.for_each(
                [&](uint64_t off, const ri::Packet& p) {
                    out.push_back(std::to_string(off) + " " + std::to_string(static_cast<int>(p.type)) + " " +
                                  std::to_string(p.size));
                },
                limit);
            uint64_t at = size;
            d.get_offset(at);
            if (err == 0) return at;
            if (err == -ri::pte_eos) return size;
            out.push_back(std::to_string(at) + " error " + std::to_string(err));
            if (d.sync_forward() < 0) return size;
            uint64_t sync = size;
            d.get_sync_offset(sync);
            if (sync >= stop) return sync;
        }
    };
    size_t parts = 0, dropped = 0;
    for (const Case& c : cases()) {
        ri::TraceBytes bytes = ri::TraceBytes::copy(c.bytes.data(), c.bytes.size());
        ri::Config config = config_of(bytes);
        const uint64_t size = bytes.size();
        Packets serial;
        ri::PacketDecoder d(config);
        if (d.sync_forward() >= 0) decode(serial, d, size, size);
        Packets merged;
        ri::PartCount n = ri::decode_psb_parts<Packets>(
            config, 2, 1,
            [&](Packets& part, ri::PacketDecoder& dec, uint64_t stop) {
                return decode(part, dec, stop, size);
            },
            [&](Packets& part) { merged.insert(merged.end(), part.begin(), part.end()); });
        ASSERT_EQ(merged, serial) << c.name;
        parts += n.parts;
        dropped += n.dropped;
    }
    EXPECT_GT(parts, 1000u);
    EXPECT_GT(dropped, 0u);
}

// Every event of the "ipt" input format (type, time, missed, payload), then the final status.
std::string events(const ri::Config& config, unsigned threads, uint64_t part_bytes,
                   ri::EventSequence::Counts* counts = nullptr,
                   ri::EventSequence::CallerDecodes caller = ri::EventSequence::CallerDecodes::never) {
    NoSymbols resolvers;
    ri::EventBuilder builder(config, resolvers, "test.pt");
    ri::EventSequence sequence(config, builder, threads, part_bytes, caller);
    std::string out;
    ri::EventView e;
    while (sequence.next(e)) {
        out += std::to_string(e.type) + " " + std::to_string(e.ts) + " " + std::to_string(e.missed);
        for (uint8_t b : e.payload) out += " " + std::to_string(b);
        out += "\n";
    }
    out += sequence.status() ? std::string("ok") : sequence.status().error().to_string();
    if (counts) *counts = sequence.counts();
    return out;
}

// Parts decoded from a fresh state, their prefixes decoded again from the previous part's state,
// give the events of one serial decode, on every kind of stream, with parts cut at almost every
// PSB or every few. The workers take every part here: parts are joined (the fix-up path runs)
// and, on damaged streams, dropped or decoded again whole.
TEST(IptParallel, EventsEqualSerial) {
    std::vector<Case> all = cases_and_realistic(30, 200, 15);
    ri::EventSequence::Counts total;
    size_t nonempty = 0;
    for (const Case& c : all) {
        ri::TraceBytes bytes = ri::TraceBytes::copy(c.bytes.data(), c.bytes.size());
        ri::Config config = config_of(bytes);
        std::string serial = events(config, 1, 0);
        if (serial.size() > 1000) ++nonempty;
        for (uint64_t part : {uint64_t{1}, uint64_t{300}, uint64_t{4000}}) {
            for (unsigned threads : {2u, 4u}) {
                ri::EventSequence::Counts n;
                ASSERT_EQ(events(config, threads, part, &n), serial)
                    << c.name << " part " << part << " -j " << threads;
                total.parts += n.parts;
                total.joined += n.joined;
                total.redecoded += n.redecoded;
                total.dropped += n.dropped;
            }
        }
    }
    EXPECT_GT(nonempty, 20u);
    EXPECT_GT(total.joined, 1000u);
    EXPECT_GT(total.redecoded, 100u);
    EXPECT_GT(total.dropped, 10u);
    EXPECT_LE(total.joined + total.redecoded, total.parts);
}

// The same when the serial decode takes the parts no worker has started (the default): the part
// it needs next, or the one after it when it finds its part still being decoded. Reading events
// costs the caller little here, so it runs ahead of one worker and takes parts.
TEST(IptParallel, EventsEqualSerialWhenTheCallerTakesParts) {
    std::vector<Case> all = cases_and_realistic(30, 200, 15);
    ri::EventSequence::Counts total;
    for (const Case& c : all) {
        ri::TraceBytes bytes = ri::TraceBytes::copy(c.bytes.data(), c.bytes.size());
        ri::Config config = config_of(bytes);
        std::string serial = events(config, 1, 0);
        for (uint64_t part : {uint64_t{1}, uint64_t{300}, uint64_t{4000}}) {
            for (unsigned threads : {2u, 4u}) {
                ri::EventSequence::Counts n;
                ASSERT_EQ(events(config, threads, part, &n, ri::EventSequence::CallerDecodes::when_ahead),
                          serial)
                    << c.name << " part " << part << " -j " << threads;
                total.parts += n.parts;
                total.joined += n.joined;
                total.claimed += n.claimed;
            }
        }
    }
    EXPECT_GT(total.claimed, 100u);  // ~3700 of 3950 here; ~2000 on one core
    EXPECT_LE(total.joined + total.claimed, total.parts);
}

// Why the prefixes are decoded again: a part decoded from a fresh state starts with other times
// (0 before its first TSC) and IPs (compressed ones against no last IP) than the serial decode has
// there. Joining the workers' records from the start of each part would change the output.
TEST(IptParallel, FreshPartsDifferBeforeTheyConverge) {
    GeneratorOptions o;
    o.segments = 60;
    o.body_packets = 40;
    std::vector<uint8_t> raw = ri::testing::generate_stream(5, o);
    ri::TraceBytes bytes = ri::TraceBytes::copy(raw.data(), raw.size());
    ri::Config config = config_of(bytes);
    NoSymbols resolvers;
    ri::EventBuilder builder(config, resolvers, "test.pt");
    // Serial events by packet offset (payload @0).
    std::vector<std::pair<uint64_t, std::string>> serial;
    {
        ri::EventSequence sequence(config, builder, 1, 0);
        ri::EventView e;
        while (sequence.next(e)) {
            uint64_t off = 0;
            std::memcpy(&off, e.payload.data(), 8);
            serial.emplace_back(off, std::to_string(e.ts) + " " + std::to_string(e.missed) + " " +
                                         std::string(e.payload.begin(), e.payload.end()));
        }
    }
    size_t differ_before = 0, differ_after = 0, compared_after = 0;
    for (uint64_t cut : ri::psb_cuts(config, 1)) {
        if (cut == 0 || cut >= raw.size()) continue;
        auto at = std::find_if(serial.begin(), serial.end(), [&](const auto& s) { return s.first == cut; });
        if (at == serial.end()) continue;  // the serial decode does not land on this PSB
        ri::PacketDecoder decoder(config);
        decoder.sync_set(cut);
        ri::EventState state;
        ri::ByteBuffer payload;
        ri::BuiltEvent e{.bytes = &payload};
        for (; at != serial.end() && builder.next(decoder, state, e, config.end); ++at) {
            std::span<const uint8_t> payload_bytes = e.payload();
            std::string mine = std::to_string(e.ts) + " " + std::to_string(e.missed) + " " +
                               std::string(payload_bytes.begin(), payload_bytes.end());
            bool converged = state.converged();
            if (mine != at->second) ++(converged ? differ_after : differ_before);
            if (converged) ++compared_after;
            if (converged && compared_after % 50 == 0) break;
        }
    }
    EXPECT_GT(differ_before, 10u);
    EXPECT_GT(compared_after, 500u);
    EXPECT_EQ(differ_after, 0u);
}

// Runs a shell command; its stdout, and its exit status in code.
std::string shell(const std::string& cmd, int& code) {
    std::string out;
    std::FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
        code = -1;
        return out;
    }
    std::array<char, 1 << 16> buf;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    code = pclose(p);
    return out;
}

// `ringscope report [-j N] FILE.pt`: the same bytes with -j 1, 2 and 4, as text, JSON and CSV, on streams
// of several parts (256 KiB each): realistic, damaged (corrupted bytes: errors mid-stream and
// resyncs), and the generator's full mix (overflows, every time packet, IPs of every compression).
TEST(IptParallel, ReportJobsPrintTheSame) {
    const std::string bin = std::string(RINGSCOPE_BINARY_DIR) + "/ringscope";
    std::vector<std::pair<std::string, std::vector<uint8_t>>> streams;
    GeneratorOptions o;
    o.realistic = true;
    o.segments = 180;
    o.body_packets = 2000;
    streams.emplace_back("realistic", ri::testing::generate_stream(3, o));
    o.corruptions = 200;
    streams.emplace_back("corrupted", ri::testing::generate_stream(4, o));
    GeneratorOptions mix;
    mix.segments = 4500;
    mix.body_packets = 60;
    mix.corruptions = 100;
    streams.emplace_back("mix", ri::testing::generate_stream(6, mix));
    for (const auto& [name, raw] : streams) {
        ASSERT_GT(raw.size(), 3u * 256 * 1024) << name;
        std::string path = write_temp(raw, "ipt_report_" + name);
        ASSERT_FALSE(path.empty());
        for (const char* format : {"text", "json", "csv"}) {
            std::string base = bin + " report --input-format ipt --format " + format + " ";
            int code = 0;
            std::string one = shell(base + "-j 1 " + path, code);
            ASSERT_EQ(code, 0) << name;
            EXPECT_GT(one.size(), raw.size()) << name;
            for (const char* jobs : {"2", "4"}) {
                std::string many = shell(base + "-j " + jobs + " " + path, code);
                EXPECT_EQ(code, 0) << name;
                EXPECT_TRUE(many == one) << name << " " << format << " -j " << jobs << ": " << many.size()
                                         << " bytes, -j 1: " << one.size();
            }
        }
        std::remove(path.c_str());
    }
}

// The commands: -j 2 prints what -j 1 prints; a bad -j is a usage error with a one-line message.
TEST(IptParallel, Commands) {
    GeneratorOptions o;
    o.segments = 200;
    o.corruptions = 20;
    std::vector<uint8_t> raw = ri::testing::generate_stream(11, o);
    std::string path = ::testing::TempDir() + "ipt_parallel_" + std::to_string(getpid()) + ".pt";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(raw.data(), 1, raw.size(), f), raw.size());
    std::fclose(f);
    auto run = [](int (*main)(const std::vector<std::string>&, std::FILE*, std::FILE*),
                  std::vector<std::string> args,
                  int& code) { return capture([&](std::FILE* out) { code = main(args, out, stderr); }); };
    int c1 = -1, c2 = -1;
    std::string one = run(ri::ptdump_main, {path}, c1);
    std::string two = run(ri::ptdump_main, {"-j", "2", path}, c2);
    EXPECT_EQ(c1, 0);
    EXPECT_EQ(c2, 0);
    EXPECT_GT(one.size(), 10000u);
    EXPECT_EQ(two, one);
    one = run(ri::summary_main, {"--format", "json", path}, c1);
    two = run(ri::summary_main, {"--format", "json", "-j", "2", path}, c2);
    EXPECT_EQ(c1, 0);
    EXPECT_EQ(c2, 0);
    EXPECT_EQ(two, one);
    std::string err = capture([&](std::FILE* e) { c1 = ri::ptdump_main({"-j", "0", path}, stdout, e); });
    EXPECT_EQ(c1, 2);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    err = capture([&](std::FILE* e) { c2 = ri::summary_main({"-j", "x", path}, stdout, e); });
    EXPECT_EQ(c2, 2);
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    std::remove(path.c_str());
}

}  // namespace
