// Hand-made Intel PT streams for the tests: the PSB and PSBEND packets, concatenation, and a
// buffer with its decoder configuration.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

// raw in a file of the test's temporary folder (its path; empty when it cannot be written).
inline std::string write_temp(const Bytes& raw, const std::string& name) {
    std::string path = ::testing::TempDir() + name + "_" + std::to_string(getpid()) + ".pt";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return "";
    // fwrite's buffer must not be null, even for no bytes (an empty vector's data() may be).
    size_t n = raw.empty() ? 0 : std::fwrite(raw.data(), 1, raw.size(), f);
    std::fclose(f);
    return n == raw.size() ? path : "";
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
