// Decoding a stream in parts cut at PSBs, on several threads, with the parts' results taken in
// stream order (libipt's documentation: PSB segments decode independently). A part is decoded from
// its PSB until a packet would start at or after the next cut. When decoding ran past that cut (a
// packet or a resync crossed it), the next part did not start where a serial decode would be: it
// is dropped and decoding goes on from where the previous part stopped, on the calling thread,
// until it lands on a cut again. Results are therefore those of one serial decode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "ipt/config.hpp"
#include "ipt/packet_decoder.hpp"
#include "ipt/pages_behind.hpp"

namespace ringscope::ipt {

// Offsets of PSBs about part_bytes apart, the first PSB a decoder syncs to first, then the
// stream's size; empty when the stream has no PSB. With pages, the pages looked at are given back
// behind the search (then pages->restart() for the decode), and the search stops where the file
// shrank (pages->failed()).
std::vector<uint64_t> psb_cuts(const Config& config, uint64_t part_bytes, PagesBehind* pages = nullptr);

// Runs work(i) for i in [0, n) on up to `threads` threads and take(i) on the calling thread in
// order; at most `window` parts are started and not yet taken (bounded memory). Once stop() is
// true (asked after each take), no more work starts and no more takes are made.
void run_in_order(size_t n, unsigned threads, size_t window, const std::function<void(size_t)>& work,
                  const std::function<void(size_t)>& take, const std::function<bool()>& stop = nullptr);

// run(Part&, PacketDecoder&, uint64_t stop) decodes from the decoder's position until a packet
// would start at or after stop, and returns the offset it stopped at (the stream's size at the
// end); take(Part&) gets the parts in stream order.
struct PartCount {
    size_t parts = 0;    // cut at PSBs
    size_t dropped = 0;  // decoded on a thread, then not used: decoding ran past their start
};

// The parts between cuts (offsets in carry's buffer, ascending; cuts.front() == at): part 0 goes on
// from carry (where the previous cuts' parts stopped), the others start on their PSB. carry and
// at are left where decoding stopped, for cuts that follow in the same stream. With pages, the
// pages behind the part taken are given back (the workers read ahead of it, within the window of
// parts in flight), and decoding stops where the file shrank (pages->failed()).
template <class Part, class Run, class Take>
void decode_cut_parts(const std::vector<uint64_t>& cuts, unsigned threads, PacketDecoder& carry, uint64_t& at,
                      PartCount& count, Run run, Take take, PagesBehind* pages = nullptr) {
    if (cuts.size() < 2) return;
    const size_t n = cuts.size() - 1;
    count.parts += n;
    std::vector<Part> parts(n);
    std::vector<PacketDecoder> decoders(n, carry);
    std::vector<uint64_t> reached(n, 0);
    run_in_order(
        n, threads, 2 * static_cast<size_t>(threads),
        [&](size_t i) {
            if (i > 0) decoders[i].sync_set(cuts[i]);
            reached[i] = run(parts[i], decoders[i], cuts[i + 1]);
        },
        [&](size_t i) {
            if (cuts[i] == at) {
                take(parts[i]);
                carry = decoders[i];
                at = reached[i];
            } else {
                ++count.dropped;
            }
            // Freed, not assigned: a string assigned an empty one keeps its buffer (libstdc++),
            // and every part's text would stay until the end.
            { [[maybe_unused]] Part done(std::move(parts[i])); }
            if (at < cuts[i + 1]) {
                Part rest;
                at = run(rest, carry, cuts[i + 1]);
                take(rest);
            }
        },
        [&] { return pages && !pages->at(at); });
}

template <class Part, class Run, class Take>
PartCount decode_psb_parts(const Config& config, unsigned threads, uint64_t part_bytes, Run run, Take take,
                           PagesBehind* pages = nullptr) {
    PartCount count;
    std::vector<uint64_t> cuts = psb_cuts(config, part_bytes, pages);
    if (cuts.size() < 2 || (pages && pages->failed())) return count;
    PacketDecoder carry(config);
    carry.sync_set(cuts[0]);
    uint64_t at = cuts[0];
    decode_cut_parts<Part>(cuts, threads, carry, at, count, run, take, pages);
    return count;
}

}  // namespace ringscope::ipt
