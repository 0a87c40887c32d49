// A process header's lane: its threads' activity at one level of detail, as Perfetto's process
// track summary shows it (the union of the threads' running spans, and how many ran at once).
#pragma once

#include <vector>

#include "framework/view/view_index.hpp"

namespace ringscope::view {

// The union of the running (TaskState::running) spans of THREADS (each a task's states at one
// width, in time order): one span per stretch where any of them runs, `value` the most running
// at once in it, `n` how many running spans went into it. Spans that touch are joined.
std::vector<Span> running_union(const std::vector<const std::vector<Span>*>& threads);

}  // namespace ringscope::view
