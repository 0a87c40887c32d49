// libFuzzer target: the packet layer and ptdump on arbitrary bytes (no crash, no hang, no read out
// of bounds). The first byte picks options so that time tracking and resync paths run too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "ipt/packet_decoder.hpp"
#include "ipt/ptdump.hpp"
#include "ipt/trace_file.hpp"

using namespace ringscope::ipt;

namespace {

// The fields of the packets for_each decodes itself (read_sized); others come from next() on both
// sides, compared by offset, type and size (their payloads' padding bytes are not defined).
void note(std::vector<uint64_t>& out, uint64_t offset, const Packet& p) {
    uint64_t a = 0, b = 0;
    switch (p.type) {
        case PacketType::tnt_8:
        case PacketType::tnt_64:
            a = p.payload.tnt.bit_size;
            b = p.payload.tnt.payload;
            break;
        case PacketType::tip:
        case PacketType::tip_pge:
        case PacketType::tip_pgd:
        case PacketType::fup:
            a = p.payload.ip.ipc;
            b = p.payload.ip.ip;
            break;
        case PacketType::mtc:
            a = p.payload.mtc;
            break;
        case PacketType::cyc:
            a = p.payload.cyc;
            break;
        default:
            break;
    }
    out.insert(out.end(), {offset, static_cast<uint64_t>(p.type) << 8 | p.size, a, b});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    uint8_t flags = data[0];
    // A copy in an aligned buffer of exactly the input size, so that ASan sees every overread.
    TraceBytes bytes = TraceBytes::copy(data + 1, size - 1);
    Config config;
    config.begin = bytes.begin();
    config.end = bytes.end();
    config.packets = (flags & 1) ? PacketSet::libipt_2_0_5 : PacketSet::full;
    config.errata.skd007 = flags & 2;
    config.errata.skz84 = flags & 4;
    config.mtc_freq = flags >> 4;
    config.cpuid_0x15_eax = 1;
    config.cpuid_0x15_ebx = (flags >> 3) & 1 ? 4 : 0;
    config.nom_freq = (flags & 8) ? 4 : 0;

    PacketDecoder d(config);
    for (int round = 0; round < 64 && d.sync_forward() == 0; ++round) {
        Packet p;
        while (d.next(p) > 0) {
        }
    }
    // for_each, which finds the packets of a block at once, gives exactly what next() gives: the
    // same packets at the same offsets, and the same error at the end of each segment.
    std::vector<uint64_t> batch, single;
    PacketDecoder each(config);
    for (int round = 0; round < 64 && each.sync_forward() == 0; ++round) {
        int err = each.for_each([&](uint64_t offset, const Packet& p) { note(batch, offset, p); });
        batch.push_back(static_cast<uint64_t>(err));
        if (err == -pte_eos) break;
    }
    PacketDecoder one(config);
    for (int round = 0; round < 64 && one.sync_forward() == 0; ++round) {
        int err;
        for (;;) {
            uint64_t offset = 0;
            one.get_offset(offset);
            Packet p;
            err = one.next(p);
            if (err < 0) break;
            note(single, offset, p);
        }
        single.push_back(static_cast<uint64_t>(err));
        if (err == -pte_eos) break;
    }
    if (batch != single) __builtin_trap();

    PacketDecoder b(config);
    for (int round = 0; round < 64 && b.sync_backward() == 0; ++round) {
    }
    PacketDecoder raw(config);
    if (raw.sync_set(0) == 0) {
        Packet p;
        while (raw.next(p) > 0) {
        }
    }

    static std::FILE* sink = std::fopen("/dev/null", "w");
    PtdumpOptions options;
    options.no_sync = flags & 0x10;
    options.track_time = options.show_time = flags & 0x20;
    options.show_last_ip = flags & 0x40;
    options.show_raw_bytes = flags & 0x80;
    ptdump(config, options, sink);
    return 0;
}
