// Finding PSB packets the way libipt does: a PSB is found through an 8-byte word, aligned in
// memory, that is all PSB pattern (02 82 repeated); the PSB is then located by walking to the end
// of that run of pattern and stepping back one PSB. Matching libipt includes that alignment rule.
#pragma once

#include <cstdint>

#include "ipt/config.hpp"

namespace ringscope::ipt {

// The PSB whose pattern run contains pos (pos is in the run), or nullptr.
const uint8_t* find_psb(const uint8_t* pos, const Config& config) noexcept;

// First PSB found from pos towards the end (pte_eos when none). With skip_before, a PSB that
// starts before pos is passed over (libipt master); without, it is returned (libipt 2.0.5).
int sync_forward(const uint8_t** sync, const uint8_t* pos, const Config& config, bool skip_before) noexcept;
// First PSB found from pos towards the beginning.
int sync_backward(const uint8_t** sync, const uint8_t* pos, const Config& config) noexcept;
// The last PSB that starts below limit, as the searches find them: one per run of pattern, the
// last 16 bytes of the run (pte_eos when none). Each run is walked at most twice (to its end by
// find_psb, to its start when its PSB is not below limit), so a backward walk over all the PSBs
// of a buffer reads it a bounded number of times, PSB floods included. *scanned (if given) gets
// the bytes looked at, for tests that bound the work.
int psb_before(const uint8_t** sync, const uint8_t* limit, const Config& config,
               uint64_t* scanned = nullptr) noexcept;
// pos must be a complete PSB: pte_eos outside the buffer, pte_nosync when it is no PSB.
int sync_set(const uint8_t** sync, const uint8_t* pos, const Config& config) noexcept;

namespace detail {
// The searches for the next aligned word of pattern that sync_forward may use (it takes the
// fastest this machine runs), for tests to compare them all.
enum class PatternSearch { portable, sse2, avx2, avx512 };
bool pattern_search_available(PatternSearch how) noexcept;
// The first aligned word in [pos, end) (pos aligned to 8) that is all pattern; nullptr when there
// is none, or when this machine does not run HOW.
const uint8_t* next_pattern_word(PatternSearch how, const uint8_t* pos, const uint8_t* end) noexcept;
}  // namespace detail

}  // namespace ringscope::ipt
