#include "framework/engine/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

namespace ringscope::engine {

void parallel_for(size_t count, int threads, const std::function<void(size_t)>& fn) {
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < count;) fn(i);
    };
    std::vector<std::thread> helpers;
    const size_t want = std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), count);
    try {
        for (size_t t = 1; t < want; ++t) helpers.emplace_back(work);
    } catch (const std::system_error&) {
        // No thread to be had: this one takes what is left.
    }
    work();
    for (auto& t : helpers) t.join();
}

}  // namespace ringscope::engine
