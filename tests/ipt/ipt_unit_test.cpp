// Hand-made streams: every packet kind of the packet layer (including CFE, EVD and TRIG), the error
// codes, the sync report format and the EventStream payload layout.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <ringscope/resolver.hpp>

#include "ipt/block_starts.hpp"
#include "ipt/errors.hpp"
#include "ipt/event_stream.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/packet_reader.hpp"
#include "ipt/psb_search.hpp"
#include "ipt/query_decoder.hpp"
#include "ipt/sync_report.hpp"
#include "ipt/trace_file.hpp"
#include "ipt_test_bytes.hpp"

using namespace ringscope::ipt;

namespace {

using namespace ipt_test;

// xorshift64: random bytes for the tests, the same on every run.
struct XorShift {
    uint64_t state;
    uint64_t operator()() noexcept {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    }
};

int read_one(const Bytes& b, Packet& p, PacketSet set = PacketSet::full) {
    Buffer buf(b, set);
    return read_packet(p, buf.config.begin, buf.config);
}

TEST(IptPackets, FixedSizeKinds) {
    Packet p;
    EXPECT_EQ(read_one({0x00}, p), 1);
    EXPECT_EQ(p.type, PacketType::pad);
    EXPECT_EQ(read_one(kPsb, p), 16);
    EXPECT_EQ(p.type, PacketType::psb);
    EXPECT_EQ(read_one({0x02, 0xf3}, p), 2);
    EXPECT_EQ(p.type, PacketType::ovf);
    EXPECT_EQ(read_one({0x02, 0x83}, p), 2);
    EXPECT_EQ(p.type, PacketType::stop);
    EXPECT_EQ(read_one({0x02, 0x03, 0x2a, 0x00}, p), 4);
    EXPECT_EQ(p.type, PacketType::cbr);
    EXPECT_EQ(p.payload.cbr, 0x2a);
    EXPECT_EQ(read_one({0x19, 1, 2, 3, 4, 5, 6, 7}, p), 8);
    EXPECT_EQ(p.payload.tsc, 0x07060504030201ull);
    EXPECT_EQ(read_one({0x02, 0x73, 0x34, 0x12, 0x00, 0xff, 0x01}, p), 7);
    EXPECT_EQ(p.type, PacketType::tma);
    EXPECT_EQ(p.payload.tma.ctc, 0x1234);
    EXPECT_EQ(p.payload.tma.fc, 0x1ff);
    EXPECT_EQ(read_one({0x02, 0x73, 0x34, 0x12, 0x00, 0xff, 0x02}, p), -pte_bad_packet);
    EXPECT_EQ(read_one({0x02, 0x73, 0x34, 0x12, 0x01, 0xff, 0x01}, p), -pte_bad_packet);
    EXPECT_EQ(read_one({0x59, 0x7f}, p), 2);
    EXPECT_EQ(p.payload.mtc, 0x7f);
    EXPECT_EQ(read_one({0x02, 0x43, 0x03, 0, 0, 0, 0, 0}, p), 8);
    EXPECT_EQ(p.payload.pip.cr3, 0x20u);
    EXPECT_EQ(p.payload.pip.nr, 1);
    EXPECT_EQ(read_one({0x02, 0xc8, 1, 0, 0, 0, 0}, p), 7);
    EXPECT_EQ(p.payload.vmcs_base, 0x1000u);
    EXPECT_EQ(read_one({0x02, 0xc3, 0x88, 1, 2, 3, 4, 5, 6, 7, 8}, p), 11);
    EXPECT_EQ(p.type, PacketType::mnt);
    EXPECT_EQ(p.payload.mnt, 0x0807060504030201ull);
    EXPECT_EQ(read_one({0x02, 0xc3, 0x89, 1, 2, 3, 4, 5, 6, 7, 8}, p), -pte_bad_opc);
    EXPECT_EQ(read_one({0x02, 0xe2}, p), 2);
    EXPECT_EQ(p.payload.exstop_ip, 1);
    EXPECT_EQ(read_one({0x02, 0xc2, 7, 0, 0, 0, 1, 0, 0, 0}, p), 10);
    EXPECT_EQ(p.payload.mwait.hints, 7u);
    EXPECT_EQ(p.payload.mwait.ext, 1u);
    EXPECT_EQ(read_one({0x02, 0x22, 0x08, 0x21}, p), 4);
    EXPECT_EQ(p.payload.pwre.state, 2);
    EXPECT_EQ(p.payload.pwre.sub_state, 1);
    EXPECT_EQ(p.payload.pwre.hw, 1);
    EXPECT_EQ(read_one({0x02, 0xa2, 0x21, 0x01, 0, 0, 0}, p), 7);
    EXPECT_EQ(p.payload.pwrx.last, 2);
    EXPECT_EQ(p.payload.pwrx.deepest, 1);
    EXPECT_EQ(p.payload.pwrx.interrupt, 1);
}

TEST(IptPackets, VariableKinds) {
    Packet p;
    // TNT-8 0b0000'1101 -> stop bit at 3, bits 101.
    EXPECT_EQ(read_one({0x1a}, p), 1);
    EXPECT_EQ(p.type, PacketType::tnt_8);
    EXPECT_EQ(p.payload.tnt.bit_size, 3);
    EXPECT_EQ(p.payload.tnt.payload, 0x5u);
    EXPECT_EQ(read_one({0x02, 0xa3, 0x05, 0, 0, 0, 0, 0}, p), 8);
    EXPECT_EQ(p.payload.tnt.bit_size, 2);
    EXPECT_EQ(read_one({0x02, 0xa3, 0x01, 0, 0, 0, 0, 0}, p), -pte_bad_packet);
    // IP compressions.
    EXPECT_EQ(read_one({0x0d}, p), 1);
    EXPECT_EQ(p.payload.ip.ipc, ipc_suppressed);
    EXPECT_EQ(read_one({0x2d, 0x34, 0x12}, p), 3);
    EXPECT_EQ(p.payload.ip.ip, 0x1234u);
    EXPECT_EQ(read_one({0x51, 1, 2, 3, 4}, p), 5);
    EXPECT_EQ(p.type, PacketType::tip_pge);
    EXPECT_EQ(read_one({0x61, 1, 2, 3, 4, 5, 6}, p), 7);
    EXPECT_EQ(p.type, PacketType::tip_pgd);
    EXPECT_EQ(read_one({0x9d, 1, 2, 3, 4, 5, 6}, p), 7);
    EXPECT_EQ(p.type, PacketType::fup);
    EXPECT_EQ(p.payload.ip.ipc, ipc_update_48);
    EXPECT_EQ(read_one({0xcd, 1, 2, 3, 4, 5, 6, 7, 8}, p), 9);
    EXPECT_EQ(p.payload.ip.ipc, ipc_full);
    EXPECT_EQ(read_one({0xad, 1, 2, 3, 4, 5, 6, 7, 8}, p), -pte_bad_packet);  // ipc 5
    EXPECT_EQ(read_one({0xcd, 1, 2, 3}, p), -pte_eos);
    // CYC with two extension bytes: 0x07 = value 0 ext; then 0x03 (1, ext), 0x02 (1).
    EXPECT_EQ(read_one({0x07, 0x03, 0x02}, p), 3);
    EXPECT_EQ(p.payload.cyc, (1u << 5) | (1u << 12));
    EXPECT_EQ(read_one({0x07, 0x03}, p), -pte_eos);
    Bytes long_cyc = {0x07, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    EXPECT_EQ(read_one(long_cyc, p), -pte_bad_packet);
    // PTW: 4 and 8 byte payloads, reserved sizes.
    EXPECT_EQ(read_one({0x02, 0x92, 1, 2, 3, 4}, p), 6);
    EXPECT_EQ(p.payload.ptw.ip, 1);
    EXPECT_EQ(read_one({0x02, 0x32, 1, 2, 3, 4, 5, 6, 7, 8}, p), 10);
    EXPECT_EQ(p.payload.ptw.plc, 1);
    EXPECT_EQ(read_one({0x02, 0x52, 1, 2, 3, 4, 5, 6, 7, 8}, p), -pte_bad_packet);
    EXPECT_EQ(read_one({0x99, 0x01}, p), 2);
    EXPECT_EQ(p.payload.mode.leaf, ModeLeaf::exec);
    EXPECT_EQ(exec_mode_of(p.payload.mode), em_64bit);
    EXPECT_EQ(read_one({0x99, 0x23}, p), 2);
    EXPECT_EQ(p.payload.mode.leaf, ModeLeaf::tsx);
    EXPECT_EQ(p.payload.mode.abrt, 1);
    EXPECT_EQ(read_one({0x99, 0x40}, p), -pte_bad_packet);
}

TEST(IptPackets, NewerPacketsAndLegacySet) {
    Packet p;
    EXPECT_EQ(read_one({0x02, 0x13, 0x81, 14}, p), 4);
    EXPECT_EQ(p.type, PacketType::cfe);
    EXPECT_EQ(p.payload.cfe.type, 1);
    EXPECT_EQ(p.payload.cfe.vector, 14);
    EXPECT_EQ(p.payload.cfe.ip, 1);
    EXPECT_EQ(read_one({0x02, 0x53, 0x01, 0xaa, 0xba, 0xf0, 0, 0, 0, 0, 0}, p), 11);
    EXPECT_EQ(p.type, PacketType::evd);
    EXPECT_EQ(p.payload.evd.type, 1);
    EXPECT_EQ(p.payload.evd.payload, 0xf0baaau);
    EXPECT_EQ(read_one({0xd9, 0x40, 0xa1, 0x17, 0x00}, p), 5);
    EXPECT_EQ(p.type, PacketType::trig);
    EXPECT_EQ(p.payload.trig.icntv, 1);
    EXPECT_EQ(p.payload.trig.icnt, 0x17);
    EXPECT_EQ(p.payload.trig.trbv, 0xa1);
    EXPECT_EQ(read_one({0xd9, 0x40, 0xa1}, p), -pte_eos);
    EXPECT_EQ(read_one({0xd9, 0x20, 0x03}, p), 3);
    EXPECT_EQ(p.payload.trig.mult, 1);
    // libipt 2.0.5 knows none of them.
    EXPECT_EQ(read_one({0x02, 0x13, 0x81, 14}, p, PacketSet::libipt_2_0_5), -pte_bad_opc);
    EXPECT_EQ(read_one({0xd9, 0x20, 0x03}, p, PacketSet::libipt_2_0_5), -pte_bad_opc);
    EXPECT_EQ(read_one({0xc9}, p), -pte_bad_opc);
    EXPECT_EQ(read_one({0x02}, p), -pte_eos);
    EXPECT_EQ(read_one({0x02, 0x04}, p), -pte_bad_opc);
}

TEST(IptPackets, DecoderSyncAndErrors) {
    Bytes stream = cat({{0x11, 0x22, 0x33}, kPsb, {0x99, 0x01}, kPsbend, {0xc9}, kPsb, kPsbend});
    Buffer buf(stream);
    PacketDecoder d(buf.config);
    Packet p;
    EXPECT_EQ(d.next(p), -pte_nosync);
    ASSERT_EQ(d.sync_forward(), 0);
    uint64_t off = 0;
    ASSERT_EQ(d.get_sync_offset(off), 0);
    EXPECT_EQ(off, 3u);
    EXPECT_EQ(d.next(p), 16);
    EXPECT_EQ(d.next(p), 2);
    EXPECT_EQ(d.next(p), 2);
    EXPECT_EQ(d.next(p), -pte_bad_opc);
    ASSERT_EQ(d.get_offset(off), 0);
    EXPECT_EQ(off, 23u);  // the failing packet stays current
    ASSERT_EQ(d.sync_forward(), 0);
    ASSERT_EQ(d.get_sync_offset(off), 0);
    EXPECT_EQ(off, 24u);
    EXPECT_EQ(d.sync_forward(), -pte_eos);
    ASSERT_EQ(d.sync_backward(), 0);
    ASSERT_EQ(d.get_sync_offset(off), 0);
    EXPECT_EQ(off, 3u);
    EXPECT_EQ(d.sync_set(stream.size() + 1), -pte_eos);
}

// The branch-free fast path must decode exactly what the general decoder decodes.
// The sizes for_each walks by, computed sixteen bytes at a time, are the fast table's, for every
// opcode at every position of a block.
TEST(IptPackets, BlockSizesAgreeWithFastTable) {
    for (int shift = 0; shift < 64; ++shift) {
        uint8_t bytes[64 + 256], sizes[64 + 256];
        for (int i = 0; i < 64 + 256; ++i) bytes[i] = static_cast<uint8_t>(i - shift);
        detail::fast_sizes(sizes, bytes, 64 + 256);
        for (int i = 0; i < 64 + 256; ++i)
            ASSERT_EQ(sizes[i], detail::kFast[bytes[i]].size) << "opcode " << int(bytes[i]);
    }
}

TEST(IptPackets, FastPathAgreesWithGeneralPath) {
    XorShift next{0x9e3779b97f4a7c15ull};
    int fast_hits = 0;
    for (int first = 0; first < 256; ++first) {
        for (int round = 0; round < 64; ++round) {
            Bytes b(16);
            for (auto& x : b) x = static_cast<uint8_t>(next());
            b[0] = static_cast<uint8_t>(first);
            if (round % 4 == 0) b[1] = 0xa3;  // TNT-64 after an ext opcode
            Buffer buf(b);
            Packet fast, general;
            int fs = read_fast(fast, buf.config.begin);
            int gs = read_packet(general, buf.config.begin, buf.config);
            if (fs == 0) continue;
            ++fast_hits;
            ASSERT_EQ(fs, gs) << "opcode " << first;
            ASSERT_EQ(fast.type, general.type) << "opcode " << first;
            ASSERT_EQ(fast.size, general.size);
            switch (general.type) {
                case PacketType::tnt_8:
                case PacketType::tnt_64:
                    EXPECT_EQ(fast.payload.tnt.bit_size, general.payload.tnt.bit_size);
                    EXPECT_EQ(fast.payload.tnt.payload, general.payload.tnt.payload);
                    break;
                case PacketType::mtc:
                    EXPECT_EQ(fast.payload.mtc, general.payload.mtc);
                    break;
                case PacketType::cyc:
                    EXPECT_EQ(fast.payload.cyc, general.payload.cyc);
                    break;
                case PacketType::pad:
                    break;
                default:
                    EXPECT_EQ(fast.payload.ip.ipc, general.payload.ip.ipc);
                    EXPECT_EQ(fast.payload.ip.ip, general.payload.ip.ip);
                    break;
            }
        }
    }
    EXPECT_GT(fast_hits, 256 * 64 / 2);
}

// The query decoder's masked IP update equals LastIp::update for every IP compression it serves,
// from random last IPs and payload bytes (bytes beyond the payload included).
TEST(IptPackets, MaskedIpUpdateEqualsUpdate) {
    XorShift next{0x2545f4914f6cdd1dull};
    int served = 0;
    for (unsigned ipc = 0; ipc < 8; ++ipc) {
        if (!((LastIp::kMaskedIpcs >> ipc) & 1)) continue;
        for (int round = 0; round < 4096; ++round) {
            LastIp masked, general;
            masked.ip = general.ip = next();
            masked.have_ip = general.have_ip = round % 3 != 0;
            masked.suppressed = general.suppressed = round % 5 == 0;
            uint64_t raw = next();
            int n = detail::kIpSize[ipc];
            PacketIp p;
            p.ipc = static_cast<uint8_t>(ipc);
            p.ip = n == 8 ? raw : raw & ((1ull << (8 * n)) - 1);
            ASSERT_EQ(general.update(p), 0);
            masked.update_masked(ipc, raw);
            ASSERT_EQ(masked.ip, general.ip) << "ipc " << ipc;
            ASSERT_EQ(masked.have_ip, general.have_ip);
            ASSERT_EQ(masked.suppressed, general.suppressed);
            ++served;
        }
    }
    EXPECT_EQ(served, 4 * 4096);
}

// The packets of a block as for_each finds them: the vectorized search (where the machine has
// AVX-512 VBMI; AVX2 in the without_avx512 run) equals the walk through the sizes, and every packet it finds
// decodes with read_sized exactly as the general decode does, CYCs of 2 and 3 bytes and TNT-64 included.
// Blocks of random bytes, and of bytes drawn from the opcodes of a running trace (long runs).
TEST(IptPackets, BlockStartsAgreeWithWalkAndGeneralDecode) {
    XorShift next{0x2545f4914f6cdd1dull};
    const uint8_t common[] = {0x00, 0x04, 0x0a, 0x2d, 0x4d, 0x3d, 0x59, 0x03, 0x07, 0x0f,
                              0x02, 0xa3, 0x1d, 0x11, 0xcd, 0x06, 0x1f, 0x01, 0x6d};
    const bool vectorized = detail::block_starts_vectorized();
    int packets = 0, long_cycs = 0, tnt64s = 0, stopped = 0;
    for (int round = 0; round < 40000; ++round) {
        Bytes b(detail::BlockStarts::kSize + 16);
        for (auto& x : b) x = round % 2 ? static_cast<uint8_t>(next()) : common[next() % sizeof common];
        for (size_t i = 0; i + 1 < b.size(); ++i)
            if (b[i] == kOpcExt && next() % 2) b[i + 1] = 0xa3;
        Buffer buf(b, PacketSet::libipt_2_0_5);
        const uint8_t* p = buf.config.begin;
        for (bool long_cyc : {false, true}) {
            detail::BlockStarts walk, found;
            detail::block_starts_walk(walk, p, long_cyc);
            detail::block_starts(found, p, long_cyc);
            ASSERT_EQ(found.count, walk.count) << "round " << round << " vectorized " << vectorized;
            ASSERT_EQ(found.next, walk.next) << "round " << round;
            for (int i = 0; i < walk.count; ++i) ASSERT_EQ(found.at[i], walk.at[i]) << "round " << round;
            int expect = 0;
            for (int i = 0; i < walk.count; ++i) {
                ASSERT_EQ(walk.at[i], expect) << "round " << round;
                Packet fast, general;
                bool ok = read_sized(fast, p + walk.at[i]);
                int size = read_packet(general, p + walk.at[i], buf.config);
                if (!ok) {
                    ASSERT_EQ(size, -pte_bad_packet) << "round " << round;
                    ASSERT_EQ(p[walk.at[i]], kOpcExt);
                    break;
                }
                ASSERT_EQ(size, fast.size) << "round " << round << " opcode " << int(p[walk.at[i]]);
                ASSERT_EQ(fast.type, general.type) << "round " << round;
                switch (general.type) {
                    case PacketType::tnt_8:
                    case PacketType::tnt_64:
                        ASSERT_EQ(fast.payload.tnt.bit_size, general.payload.tnt.bit_size)
                            << "round " << round;
                        ASSERT_EQ(fast.payload.tnt.payload, general.payload.tnt.payload) << "round " << round;
                        break;
                    case PacketType::mtc:
                        ASSERT_EQ(fast.payload.mtc, general.payload.mtc) << "round " << round;
                        break;
                    case PacketType::cyc:
                        ASSERT_EQ(fast.payload.cyc, general.payload.cyc) << "round " << round;
                        break;
                    case PacketType::pad:
                        break;
                    default:
                        ASSERT_EQ(fast.payload.ip.ipc, general.payload.ip.ipc) << "round " << round;
                        ASSERT_EQ(fast.payload.ip.ip, general.payload.ip.ip) << "round " << round;
                        break;
                }
                if (general.type == PacketType::cyc && size > 1) ++long_cycs;
                if (general.type == PacketType::tnt_64) ++tnt64s;
                ASSERT_TRUE(long_cyc || general.type != PacketType::cyc || size == 1);
                expect += size;
                ++packets;
            }
            if (walk.next < detail::BlockStarts::kSize) {
                ++stopped;
                ASSERT_EQ(walk.next, expect) << "round " << round;
            }
        }
    }
    EXPECT_GT(packets, 300000);
    EXPECT_GT(long_cycs, 10000);
    EXPECT_GT(tnt64s, 1000);
    EXPECT_GT(stopped, 10000);
}

// The AVX2 search (block_starts without AVX-512 VBMI) equals the walk through the sizes: on every
// opcode at every offset of a block of PADs, and on blocks of packets strung together (TNT-64,
// CYCs of 1 to 4 bytes, TIPs of every IP compression, packets with no fast size, the last one
// running past the block) and of random bytes, with long CYCs on and off.
TEST(IptPackets, BlockStartsAvx2AgreesWithWalk) {
    if (!detail::block_starts_avx2_available()) GTEST_SKIP() << "no AVX2 on this machine";
    constexpr int kSize = detail::BlockStarts::kSize;
    XorShift next{0x853c49e6748fea9bull};
    auto check = [](const Bytes& b, const char* what, int round) {
        for (bool long_cyc : {false, true}) {
            detail::BlockStarts walk, found;
            detail::block_starts_walk(walk, b.data(), long_cyc);
            detail::block_starts_avx2(found, b.data(), long_cyc);
            ASSERT_EQ(found.count, walk.count) << what << " " << round << " long_cyc " << long_cyc;
            ASSERT_EQ(found.next, walk.next) << what << " " << round << " long_cyc " << long_cyc;
            for (int i = 0; i < walk.count; ++i)
                ASSERT_EQ(found.at[i], walk.at[i]) << what << " " << round << " packet " << i;
        }
    };
    for (int at = 0; at < kSize; ++at) {
        for (int opcode = 0; opcode < 256; ++opcode) {
            Bytes b(kSize + 16, 0x00);
            for (int i = at + 1; i < kSize + 16; ++i)
                b[static_cast<size_t>(i)] = static_cast<uint8_t>(next());
            b[static_cast<size_t>(at)] = static_cast<uint8_t>(opcode);
            if (opcode == kOpcExt && next() % 2) b[static_cast<size_t>(at) + 1] = 0xa3;
            ASSERT_NO_FATAL_FAILURE(check(b, "opcode at", at * 256 + opcode));
        }
    }
    int long_blocks = 0;
    for (int round = 0; round < 20000; ++round) {
        Bytes b;
        while (b.size() < kSize + 16) {
            auto r = static_cast<uint8_t>(next());
            // A packet with no fast size or a random byte one time in 32: most blocks run past their end.
            auto kind = next() % 64;
            switch (kind < 9 ? kind : kind % 7) {
                case 0:  // PAD
                    b.push_back(0x00);
                    break;
                case 1:  // TNT-8
                    b.push_back(static_cast<uint8_t>(r & 0xfc) | 0x04);
                    break;
                case 2:  // CYC, 1 byte
                    b.push_back(static_cast<uint8_t>(r << 3) | 0x03);
                    break;
                case 3: {  // CYC with an extension: 2, 3 or 4+ bytes
                    b.push_back(static_cast<uint8_t>(r << 3) | 0x07);
                    int more = static_cast<int>(next() % 3);
                    for (int i = 0; i < more; ++i) b.push_back(static_cast<uint8_t>(next()) | 1);
                    b.push_back(static_cast<uint8_t>(next()) & 0xfe);
                    break;
                }
                case 4:  // MTC
                    b.insert(b.end(), {0x59, r});
                    break;
                case 5:  // TNT-64
                    b.insert(b.end(), {kOpcExt, 0xa3});
                    for (int i = 0; i < 6; ++i) b.push_back(static_cast<uint8_t>(next()));
                    break;
                case 6: {  // TIP, TIP.PGE, TIP.PGD or FUP; every IP compression, reserved ones too
                    const uint8_t kinds[] = {0x0d, 0x11, 0x01, 0x1d};
                    b.push_back(static_cast<uint8_t>((r & 0xe0) | kinds[next() % 4]));
                    for (int i = 0; i < detail::kIpSize[r >> 5]; ++i)
                        b.push_back(static_cast<uint8_t>(next()));
                    break;
                }
                case 7:  // no fast size
                    b.insert(b.end(), kPsbend.begin(), kPsbend.end());
                    break;
                case 8:
                    b.push_back(r);
                    break;
            }
        }
        b.resize(kSize + 16);
        detail::BlockStarts walk;
        detail::block_starts_walk(walk, b.data(), true);
        if (walk.next > kSize) ++long_blocks;
        ASSERT_NO_FATAL_FAILURE(check(b, "packets", round));
    }
    EXPECT_GT(long_blocks, 1000);
}

std::string capture(const Config& config, const std::vector<uint64_t>& at) {
    char* buf = nullptr;
    size_t len = 0;
    std::FILE* out = open_memstream(&buf, &len);
    sync_report(config, at, out);
    std::fclose(out);
    std::string s(buf, len);
    std::free(buf);
    return s;
}

// RINGSCOPE_IPT_NO_AVX512=1 turns the AVX-512 paths off: ctest runs this binary a second time with
// it (ipt_unit_test.without_avx512), and the differential tests too, on the other paths.
TEST(IptCpu, NoAvx512InTheEnvironmentTurnsTheVectorPathsOff) {
    if (!std::getenv("RINGSCOPE_IPT_NO_AVX512")) GTEST_SKIP() << "checked by ipt_unit_test.without_avx512";
    EXPECT_FALSE(detail::block_starts_vectorized());
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // The AVX2 packet starts stay on: they are what the run without AVX-512 times and tests.
    EXPECT_EQ(detail::block_starts_avx2_available(), __builtin_cpu_supports("avx2") != 0);
#endif
    EXPECT_FALSE(detail::pattern_search_available(detail::PatternSearch::avx512));
    EXPECT_TRUE(detail::pattern_search_available(detail::PatternSearch::portable));
}

// sync_forward takes the fastest PSB search the machine runs (AVX-512 here, AVX2, SSE2 or portable
// elsewhere): every one available must find the same word as the portable one, on buffers thick
// with half patterns (bytes 02 and 82 in runs), at every aligned start and length.
TEST(IptSync, EveryPatternSearchFindsTheSameWord) {
    using detail::PatternSearch;
    ASSERT_TRUE(detail::pattern_search_available(PatternSearch::portable));
    std::vector<PatternSearch> others;
    for (PatternSearch how : {PatternSearch::sse2, PatternSearch::avx2, PatternSearch::avx512})
        if (detail::pattern_search_available(how)) others.push_back(how);
    alignas(64) static uint8_t buf[2048 + 64];
    uint64_t x = 0x853c49e6748fea9bull;
    auto next = [&] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
    size_t found = 0, compared = 0;
    for (int round = 0; round < 400; ++round) {
        for (auto& b : buf) {
            const uint64_t r = next() % 16;
            b = r < 7 ? 0x02 : r < 14 ? 0x82 : static_cast<uint8_t>(next());
        }
        // Now and then a whole word of pattern in one phase or the other, aligned or not.
        for (int k = next() % 3; k > 0; --k) {
            const size_t at = next() % (sizeof buf - 8);
            for (size_t i = 0; i < 8; ++i) buf[at + i] = ((at + i + (next() & 1)) & 1) ? 0x82 : 0x02;
        }
        const size_t len = 8 * (next() % (2048 / 8));
        const uint8_t* end = buf + len;
        for (size_t start = 0; start <= len; start += 8 * (1 + next() % 9)) {
            const uint8_t* want = detail::next_pattern_word(PatternSearch::portable, buf + start, end);
            found += want != nullptr;
            for (PatternSearch how : others) {
                ASSERT_EQ(detail::next_pattern_word(how, buf + start, end), want)
                    << "search " << static_cast<int>(how) << " round " << round << " start " << start
                    << " length " << len;
                ++compared;
            }
        }
    }
    EXPECT_GT(found, 1000u);
    // This machine runs at least SSE2 (x86-64): the comparison happened.
    EXPECT_GT(compared, 1000u);
}

TEST(IptSync, ReportFormat) {
    // Garbage; PSB+ with a FUP (tracing on) at 0x2; a PSB+ broken by a TNT at 0x1c; a PSB+ without
    // FUP (tracing off) at 0x2f followed by a TIP cut by the end. The buffer is 64-byte aligned,
    // which fixes the words libipt's PSB search looks at.
    Bytes fup = {0x7d, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00};  // sext-48 0x1000
    Bytes stream = cat(
        {{0xc9, 0xc9}, kPsb, fup, kPsbend, {0x1a}, kPsb, {0x1a}, kPsbend, kPsb, kPsbend, {0xcd, 0x01, 0x02}});
    ASSERT_EQ(stream.size(), 68u);
    Buffer buf(stream);
    std::string got = capture(buf.config, {2, 3, 0x1c, 0x2f, 0x1000});
    EXPECT_EQ(got,
              "sync-forward offset=0x2 status=0x0 ip=0x1000\n"
              "sync-forward error=pte_bad_context offset=0x1c\n"
              "sync-forward offset=0x2f status=0x2 ip=suppressed\n"
              "sync-forward error=pte_eos\n"
              "sync-backward offset=0x2f status=0x2 ip=suppressed\n"
              "sync-backward error=pte_bad_context offset=0x1c\n"
              "sync-backward offset=0x2 status=0x0 ip=0x1000\n"
              "sync-backward error=pte_eos\n"
              "sync-set offset=0x2 -> status=0x0 ip=0x1000\n"
              "sync-set offset=0x3 -> error=pte_nosync\n"
              "sync-set offset=0x1c -> error=pte_bad_context\n"
              "sync-set offset=0x2f -> status=0x2 ip=suppressed\n"
              "sync-set offset=0x1000 -> error=pte_eos\n");
}

// libipt 2.0.5's pt_qry_sync_backward loops forever on these (found by brute force over small
// streams): the PSB search keeps finding the later of two back-to-back PSBs, whose PSB+ is cut by
// the end. Ours must return; there is no complete PSB+ anywhere, so the answer is pte_eos.
TEST(IptSync, BackToBackPsbsTerminate) {
    std::vector<Bytes> streams = {cat({kPsb, kPsb}), cat({kPsb, kPsb, kPsb}), cat({{0x00}, kPsb, kPsb})};
    for (const Bytes& b : streams) {
        Buffer buf(b);
        QueryDecoder back(buf.config);
        uint64_t ip = 0;
        EXPECT_EQ(back.sync_backward(&ip), -pte_eos) << b.size();
        QueryDecoder fwd(buf.config);
        EXPECT_EQ(fwd.sync_forward(&ip), -pte_eos) << b.size();
        std::string report = capture(buf.config, {0});
        EXPECT_NE(report.find("sync-backward error=pte_eos\n"), std::string::npos) << report;
    }
}

TEST(IptQuery, BranchesAndEvents) {
    Bytes fup = {0x7d, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00};
    Bytes stream = cat({kPsb, fup, {0x99, 0x01}, kPsbend, {0x1a}, {0x2d, 0x20, 0x10}, {0x01}});
    Buffer buf(stream);
    QueryDecoder q(buf.config);
    uint64_t ip = 0;
    int status = q.sync_forward(&ip);
    ASSERT_GE(status, 0);
    EXPECT_EQ(ip, 0x1000u);
    EXPECT_TRUE(status & pts_event_pending);
    QueryEvent ev;
    status = q.event(ev);
    ASSERT_GE(status, 0);
    EXPECT_EQ(ev.type, EventKind::exec_mode);
    EXPECT_TRUE(ev.status_update);
    EXPECT_EQ(ev.exec_mode, em_64bit);
    int taken = -1;
    ASSERT_GE(q.cond_branch(taken), 0);
    EXPECT_EQ(taken, 1);
    ASSERT_GE(q.cond_branch(taken), 0);
    EXPECT_EQ(taken, 0);
    status = q.cond_branch(taken);
    ASSERT_GE(status, 0);
    EXPECT_EQ(taken, 1);
    uint64_t target = 0;
    status = q.indirect_branch(target);
    ASSERT_GE(status, 0);
    EXPECT_EQ(target, 0x1020u);
    EXPECT_TRUE(status & pts_event_pending);
    status = q.event(ev);
    ASSERT_GE(status, 0);
    EXPECT_EQ(ev.type, EventKind::disabled);
    EXPECT_TRUE(ev.ip_suppressed);
    EXPECT_TRUE(status & pts_eos);
    EXPECT_EQ(q.event(ev), -pte_eos);
}

class NoResolvers : public ringscope::ResolverService {
  public:
    void add(std::string, std::shared_ptr<const ringscope::SymbolResolver>) override {}
    std::optional<ringscope::Symbol> lookup(std::string_view, uint64_t addr) const override {
        if (addr >= 0x1000 && addr < 0x2000) return ringscope::Symbol{"start_kernel", 0x1000, 0x1000, {}};
        return std::nullopt;
    }
    bool has(std::string_view) const override { return true; }
    std::vector<std::string> domains() const override { return {"kernel"}; }
};

TEST(IptEventStream, ProbeAndFields) {
    Bytes fup = {0x7d, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00};
    Bytes tsc = {0x19, 0x00, 0x10, 0, 0, 0, 0, 0};
    Bytes stream = cat({kPsb, tsc, fup, kPsbend, {0x1a}, {0x2d, 0x20, 0x10}, {0x02, 0x03, 0x20, 0x00}});
    EXPECT_EQ(probe_ipt(stream), 100);
    EXPECT_EQ(probe_ipt(cat({{0xc9}, stream})), 80);
    EXPECT_EQ(probe_ipt(Bytes(64, 0x41)), 0);
    IptDecoder dec;
    NoResolvers resolvers;
    ringscope::InputSource in;
    in.path = "mem.pt";
    in.mapped = stream;
    auto opened = dec.open(in, resolvers);
    ASSERT_TRUE(opened);
    auto& s = *opened;
    std::vector<std::string> names;
    ringscope::Event ev;
    uint64_t tip_ip = 0;
    std::string symbol;
    uint64_t last_ts = 0;
    while (s->next(ev)) {
        names.emplace_back(ev.name());
        EXPECT_EQ(ev.system(), "ipt");
        if (ev.name() == "tip") {
            tip_ip = static_cast<uint64_t>(*ev.integer("ip"));
            symbol = std::string(*ev.str("symbol"));
        }
        last_ts = ev.timestamp();
    }
    EXPECT_TRUE(s->status().ok());
    EXPECT_EQ(names, (std::vector<std::string>{"psb", "tsc", "fup", "tnt", "tip", "cbr"}));
    EXPECT_EQ(tip_ip, 0x1020u);
    EXPECT_EQ(symbol, "start_kernel+0x20");
    EXPECT_EQ(last_ts, 0x1000u);
}

}  // namespace
