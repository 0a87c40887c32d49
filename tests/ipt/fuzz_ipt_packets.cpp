// libFuzzer target: the packet layer and ptdump on arbitrary bytes (no crash, no hang, no read out
// of bounds). The first byte picks options so that time tracking and resync paths run too.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "ipt/packet_decoder.hpp"
#include "ipt/ptdump.hpp"
#include "ipt/trace_file.hpp"

using namespace ringscope::ipt;

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
