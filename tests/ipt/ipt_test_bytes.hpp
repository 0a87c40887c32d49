// Hand-made Intel PT streams for the tests: the PSB and PSBEND packets, concatenation, and a
// buffer with its decoder configuration.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "ipt/config.hpp"
#include "ipt/trace_file.hpp"

namespace ipt_test {

using Bytes = std::vector<uint8_t>;

inline const Bytes kPsb = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                           0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82};
inline const Bytes kPsbend = {0x02, 0x23};

inline Bytes cat(std::initializer_list<Bytes> parts) {
    Bytes out;
    for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

struct Buffer {
    ringscope::ipt::TraceBytes bytes;
    ringscope::ipt::Config config;
    explicit Buffer(const Bytes& b, ringscope::ipt::PacketSet set = ringscope::ipt::PacketSet::full)
        : bytes(ringscope::ipt::TraceBytes::copy(b.data(), b.size())) {
        config.begin = bytes.begin();
        config.end = bytes.end();
        config.packets = set;
    }
};

}  // namespace ipt_test
