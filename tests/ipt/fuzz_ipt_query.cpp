// libFuzzer target: the query decoder and the sync report on arbitrary bytes. Queries are driven
// like a flow decoder would, with a step limit; every sync direction must terminate.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "ipt/errors.hpp"
#include "ipt/query_decoder.hpp"
#include "ipt/sync_report.hpp"
#include "ipt/trace_file.hpp"

using namespace ringscope::ipt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    uint8_t flags = data[0];
    TraceBytes bytes = TraceBytes::copy(data + 1, size - 1);
    Config config;
    config.begin = bytes.begin();
    config.end = bytes.end();
    config.mtc_freq = flags & 0xf;
    config.cpuid_0x15_eax = 2;
    config.cpuid_0x15_ebx = (flags & 0x10) ? 7 : 0;
    config.nom_freq = (flags & 0x20) ? 3 : 0;
    config.errata.bdm70 = flags & 0x40;
    config.errata.skd007 = flags & 0x80;

    QueryDecoder q(config);
    uint64_t ip = 0;
    int status = q.sync_forward(&ip);
    for (int steps = 0; steps < 100000; ++steps) {
        if (status < 0) {
            if (status == -pte_eos) break;
            status = q.sync_forward(&ip);
            continue;
        }
        if (status & pts_event_pending) {
            QueryEvent ev;
            status = q.event(ev);
            continue;
        }
        int taken = 0;
        status = q.cond_branch(taken);
        if (status == -pte_bad_query) {
            uint64_t target = 0;
            status = q.indirect_branch(target);
            if (status == -pte_bad_query) {
                QueryEvent ev;
                status = q.event(ev);
            }
        }
        uint64_t tsc = 0;
        uint32_t cbr = 0;
        (void)q.time(tsc, nullptr, nullptr);
        (void)q.core_bus_ratio(cbr);
    }
    static std::FILE* sink = std::fopen("/dev/null", "w");
    sync_report(config, {0, 1, size / 2, size}, sink);
    return 0;
}
