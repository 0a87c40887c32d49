// Seeded generator of Intel PT streams written with libipt's encoder (pt_enc_next): PSB+ headers
// and bodies with every packet kind and IP compression, plus the awkward cases: garbage before the
// first PSB, no PSB, a truncated last packet, corrupted bytes, PSBs close together.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringscope::ipt::testing {

struct GeneratorOptions {
    size_t segments = 4;       // PSB+ segments
    size_t body_packets = 40;  // packets after each PSB+ (on average)
    bool garbage_before = false;
    bool no_psb = false;
    bool truncate_last = false;
    size_t corruptions = 0;   // random bytes overwritten
    bool close_psbs = false;  // PSBs back to back or one small packet apart
    bool realistic = false;   // mostly TNT and compressed TIPs (for benchmarks)
    bool timed_tnt = false;   // with realistic: PAD, MTC and CYC packets between most TNTs
};

// A stream for seed; options are drawn from the seed too when random_options is set.
std::vector<uint8_t> generate_stream(uint64_t seed, const GeneratorOptions& options);
GeneratorOptions random_options(uint64_t seed);
std::string describe(const GeneratorOptions& options);

}  // namespace ringscope::ipt::testing
