// FN(i) for every i in [0, COUNT), on up to THREADS threads (the caller's among them), each taking
// the next index not yet taken; returns once every call has returned. Where no thread can be
// started, the caller makes the calls left. For the per-CPU work of report -j's set-up (listing
// chunks, probing slice bounds), where each index is independent.
#pragma once

#include <cstddef>
#include <functional>

namespace ringscope::engine {

void parallel_for(size_t count, int threads, const std::function<void(size_t)>& fn);

}  // namespace ringscope::engine
