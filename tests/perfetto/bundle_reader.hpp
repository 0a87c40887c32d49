// The FtraceEventBundles of a Perfetto trace in file order, as the tests read them: the packet's
// sequence and machine, the bundle's CPU and clock fields, its FtraceEvents and CompactSched.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "framework/perfetto/ftrace_schema.hpp"
#include "tests/perfetto/proto_reader.hpp"

namespace ringscope::test {

struct Bundle {
    uint64_t sequence = 0;
    uint32_t machine = 0, cpu = 0;
    std::optional<uint64_t> clock, ftrace_ts, boot_ts;
    std::vector<std::string_view> events;  // FtraceEvent messages
    std::optional<std::string_view> compact;
};

inline std::vector<Bundle> read_bundles(std::string_view trace) {
    namespace f = perfetto::field;
    std::vector<Bundle> out;
    for (const ProtoField& p : read_message(trace)) {
        auto packet = read_message(p.bytes);
        Bundle b;
        std::optional<std::string_view> body;
        for (const ProtoField& x : packet) {
            if (x.number == f::kPacketSequenceId) b.sequence = x.value;
            if (x.number == f::kPacketMachineId) b.machine = static_cast<uint32_t>(x.value);
            if (x.number == f::kPacketFtraceEvents) body = x.bytes;
        }
        if (!body) continue;
        for (const ProtoField& x : read_message(*body)) {
            switch (x.number) {
                case f::kBundleCpu:
                    b.cpu = static_cast<uint32_t>(x.value);
                    break;
                case f::kBundleEvent:
                    b.events.push_back(x.bytes);
                    break;
                case f::kBundleCompactSched:
                    b.compact = x.bytes;
                    break;
                case f::kBundleFtraceClock:
                    b.clock = x.value;
                    break;
                case f::kBundleFtraceTimestamp:
                    b.ftrace_ts = x.value;
                    break;
                case f::kBundleBootTimestamp:
                    b.boot_ts = x.value;
                    break;
            }
        }
        out.push_back(std::move(b));
    }
    return out;
}

// A packed repeated varint field's values.
inline std::vector<uint64_t> packed(std::string_view bytes) {
    std::vector<uint64_t> v;
    while (!bytes.empty()) v.push_back(read_varint(bytes));
    return v;
}

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace ringscope::test
