// Where the packets of a 64-byte block start, found without walking from one packet to the next:
// the walk (load the opcode, look up its size, add) is a dependency chain through every packet,
// and it bounded PacketDecoder::for_each. With AVX-512 VBMI every byte's "next packet starts
// here" offset is computed at once and composed with itself (pointer doubling), which gives the
// n-th packet's offset for every n in six steps. With AVX2 the doubling runs inside 16-byte lanes
// (pshufb does not cross them), which four scalar steps then join; elsewhere the sizes are walked.
#pragma once

#include <cstdint>

namespace ringscope::ipt::detail {

struct BlockStarts {
    static constexpr int kSize = 64;
    // Offsets of the packets read_sized decodes, increasing; count of them.
    alignas(64) uint8_t at[kSize];
    int count = 0;
    // The offset after the last of them; below kSize when the packet there has no size from its
    // opcode (PSB+ packets, multi-byte CYC, reserved IP compressions, ...): decode it in full.
    int next = 0;
};

// The packets from p, while their sizes come from the fast table, or are TNT-64's (02 a3: 8
// bytes), or with long_cyc a CYC's of 2 or 3 bytes. p[0, kSize + 1] must be readable, and 9 bytes
// from every offset below kSize.
void block_starts(BlockStarts& out, const uint8_t* p, bool long_cyc) noexcept;
// The same by walking the sizes; what block_starts does with neither AVX-512 VBMI nor AVX2.
void block_starts_walk(BlockStarts& out, const uint8_t* p, bool long_cyc) noexcept;
// The same with AVX2 (pointer doubling inside 16-byte lanes, the lanes then joined in turn); what
// block_starts does without VBMI. Only where block_starts_avx2_available(), which
// RINGSCOPE_IPT_NO_AVX512 leaves on.
void block_starts_avx2(BlockStarts& out, const uint8_t* p, bool long_cyc) noexcept;
bool block_starts_avx2_available() noexcept;
// Whether block_starts uses AVX-512 VBMI on this machine.
bool block_starts_vectorized() noexcept;

}  // namespace ringscope::ipt::detail
