// `ringscope ipt summary`: what a PT stream holds, per packet kind (count, bytes), the conditional
// branches its TNT packets carry, the PSBs, the decode errors it resynchronised over and the bytes
// no packet covers (before the first PSB, skipped after an error). All sums, so summaries of several
// streams merge exactly (partial results: save_state/load_state/merge).
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <ringscope/error.hpp>
#include <ringscope/result.hpp>

#include "ipt/config.hpp"
#include "ipt/packet.hpp"
#include "ipt/packet_decoder.hpp"

namespace ringscope::ipt {

class PacketSummary {
  public:
    static constexpr size_t kTypes = static_cast<size_t>(PacketType::trig) + 1;

    // Decodes config's buffer from its first PSB to its end; with threads > 1, PSB segments in
    // parallel (the same sums), part_bytes input bytes a part (0: the default).
    void add_stream(const Config& config, unsigned threads = 1, uint64_t part_bytes = 0);
    // The same sums for the stream in the file at path, read in windows of about window_bytes
    // (0: the default) whatever its size; window_peak (if given) gets the largest buffer used.
    Status add_file(const std::string& path, unsigned threads = 1, uint64_t window_bytes = 0,
                    size_t* window_peak = nullptr);
    void merge(const PacketSummary& other);
    // Tables "ipt.summary.totals" and "ipt.summary.packets" (the kinds seen, most frequent first).
    void end(ResultSink& sink) const;

    uint64_t packets(PacketType t) const noexcept { return kinds_[static_cast<size_t>(t)].count; }
    nlohmann::json save_state() const;
    Status load_state(const nlohmann::json& state);

  private:
    // Counts from the decoder's (synchronised) position until a packet would start at or after
    // stop; returns the offset it stopped at (size at the end).
    uint64_t add_until(PacketDecoder& decoder, uint64_t stop, uint64_t size);
    // A part of a parallel decode: add_until, and the bytes it covered in bytes_.
    uint64_t add_part(PacketDecoder& decoder, uint64_t stop);
    void take_part(PacketSummary& part, uint64_t& covered);

    struct Kind {
        uint64_t count = 0, bytes = 0;
    };
    std::array<Kind, kTypes> kinds_{};
    uint64_t streams_ = 0, bytes_ = 0, branches_ = 0, errors_ = 0, unsynced_bytes_ = 0;
};

// The whole command; exit code 0, 1 (runtime error) or 2 (usage error).
int summary_main(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace ringscope::ipt
